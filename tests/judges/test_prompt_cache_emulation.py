"""The fakes' prompt-caching emulation (tests/support/prompt_cache.py), rule by rule."""

from __future__ import annotations

from typing import Any

from tests.support.prompt_cache import (
    AnthropicPromptCache,
    CacheBill,
    GeminiPromptCache,
    OpenAIPromptCache,
)

PREFIX = " ".join(f"p{i}" for i in range(1300))


def openai_body(suffix: str, schema: str = "s1", prefix: str = PREFIX) -> dict[str, Any]:
    return {
        "model": "m",
        "response_format": {"json_schema": {"name": schema}},
        "messages": [{"role": "user", "content": f"{prefix} {suffix}"}],
    }


def test_openai_caches_only_after_the_writing_call_in_128_token_steps_with_the_schema() -> None:
    cache = OpenAIPromptCache()
    first, second = openai_body("criterion one"), openai_body("criterion two")
    assert cache.lookup(first) == CacheBill()
    assert cache.lookup(second) == CacheBill()  # sent together: nothing stored yet
    cache.store(first)
    assert cache.lookup(second) == CacheBill(read=1280)  # 1,300 shared tokens, 128-token steps
    assert cache.lookup(openai_body("criterion two", schema="s2")) == CacheBill()
    short = openai_body("x", prefix="only a few words")
    cache.store(short)
    assert cache.lookup(short) == CacheBill()  # under 1,024 tokens: never cached


def test_gemini_has_no_steps() -> None:
    cache = GeminiPromptCache()
    cache.store(openai_body("criterion one"))
    assert cache.lookup(openai_body("criterion two")) == CacheBill(read=1301)


def anthropic_body(suffix: str, ttl: str | None = None, model: str = "claude-sonnet-4-5") -> dict:
    mark: dict[str, str] = {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}
    return {
        "model": model,
        "system": [{"type": "text", "text": "system words here", "cache_control": mark}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": PREFIX, "cache_control": mark},
                    {"type": "text", "text": suffix},
                ],
            }
        ],
    }


def test_anthropic_writes_at_the_breakpoint_then_reads_until_the_ttl_ends() -> None:
    now = [0.0]
    cache = AnthropicPromptCache(clock=lambda: now[0])
    first = anthropic_body("criterion one")
    assert cache.lookup(first) == CacheBill(written=1303)  # system (3) + prefix (1,300)
    cache.store(first)
    now[0] = 299.0
    assert cache.lookup(anthropic_body("criterion two")) == CacheBill(read=1303)
    now[0] = 299.0 + 301.0  # the hit at 299 s refreshed the 5 minutes; now past them
    assert cache.lookup(anthropic_body("criterion three")) == CacheBill(written=1303)


def test_anthropic_one_hour_ttl_and_the_haiku_minimum() -> None:
    now = [0.0]
    cache = AnthropicPromptCache(clock=lambda: now[0])
    cache.store(anthropic_body("a", ttl="1h"))
    now[0] = 3000.0
    assert cache.lookup(anthropic_body("b", ttl="1h")) == CacheBill(read=1303)
    haiku = anthropic_body("a", model="claude-haiku-4-5")
    assert cache.lookup(haiku) == CacheBill()  # 1,303 tokens < 2,048: nothing written
    unmarked = {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": PREFIX}]}
    assert cache.lookup(unmarked) == CacheBill()  # no breakpoint, no cache
