"""Provider prompt caching of an item's shared prefix (docs/guides/prompt-caching.md).

Per-criterion calls for one item start with the same bytes (`prompts.shared_prefix`). Providers
bill a prefix read from their cache at a fraction of the input price, in one of two ways:

- explicit (Anthropic): `cache_control` breakpoints mark the end of what to cache; writing the
  cache costs more than plain input (1.25x for the 5-minute TTL, 2x for 1 hour), reading it 0.1x.
- implicit (OpenAI, Azure OpenAI, Gemini, DeepSeek): the provider caches long prompts on its
  own; nothing is sent and nothing costs extra.

Either way a prefix is cached only from a minimum length (`min_prefix_tokens`), and only once
the call that wrote it has been processed: the grader sends an item's first call alone
(`grading.grader`). A prefix is treated as shared (`shares_prefix`) only when caching is on for
the judge, the provider caches, at least two calls of the item share it, and its estimated
length reaches the minimum; otherwise nothing is marked, so nothing is paid for a cache write
that no call would read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.price_table import model_entry

CachingKind = Literal["explicit", "implicit"]

PROVIDER_CACHING: dict[str, CachingKind] = {
    "anthropic": "explicit",
    "openai": "implicit",
    "azure": "implicit",
    "gemini": "implicit",
    "vertex_ai": "implicit",
    "deepseek": "implicit",
}
"""How each provider caches prompts; a provider absent here is assumed not to."""

SCHEMA_IN_PREFIX = frozenset({"anthropic", "openai", "azure", "gemini", "vertex_ai"})
"""Providers whose prompt cache covers the reply schema: OpenAI (and Azure OpenAI) count the
structured-output schema in the cached prefix; a changed schema or tool invalidates Anthropic's
cache; Gemini's implicit caching is treated alike (its documents do not say otherwise)."""
SPOKEN_BY_OTHERS = frozenset({"openai"})
"""Providers whose wire format other servers speak (vLLM, llama.cpp, Ollama's `/v1`, gateways):
a judge is the provider's own service only for a model litellm prices as that provider's."""

CHARS_PER_TOKEN = 4
"""The estimate of a prefix's length in tokens: characters / 4, litellm's own rule of thumb
for English text; it only decides whether a prefix is long enough to be worth caching."""

BARE_MODEL_PROVIDERS = (("claude", "anthropic"), ("gemini", "gemini"), ("gpt-", "openai"))


def provider_of(model: str) -> str:
    """The litellm provider of a model string: its prefix, or a guess for a bare name."""
    if "/" in model:
        return model.split("/", 1)[0]
    for start, provider in BARE_MODEL_PROVIDERS:
        if model.startswith(start):
            return provider
    return "openai" if model[:2] in ("o1", "o3", "o4") else ""


def caching_kind(spec: JudgeSpec) -> CachingKind | None:
    """How this judge's provider caches prompts; None when it does not or caching is off."""
    if spec.prompt_caching == "off":
        return None
    return PROVIDER_CACHING.get(provider_of(spec.model))


def shares_schema(spec: JudgeSpec) -> bool:
    """Whether every per-criterion call to this judge sends the one shared reply schema
    (`replies.shared_schema`), so that the schema never breaks the prefix the provider caches;
    otherwise each call sends its own schema, which a grammar-constrained decoder enforces."""
    provider = provider_of(spec.model)
    if caching_kind(spec) is None or provider not in SCHEMA_IN_PREFIX:
        return False
    name = spec.model.split("/", 1)[-1]
    return provider not in SPOKEN_BY_OTHERS or model_entry(f"{provider}/{name}") is not None


def min_prefix_tokens(model: str) -> int:
    """The shortest prefix the provider caches: 1,024 tokens for most models; 2,048 on Claude
    Haiku; 4,096 on Gemini 2.5 Pro (implicit caching)."""
    name = model.lower()
    if "haiku" in name:
        return 2048
    if "gemini-2.5-pro" in name:
        return 4096
    return 1024


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def shares_prefix(spec: JudgeSpec, calls: int, system: str, prefix: str) -> bool:
    """Whether an item's `calls` calls to this judge should share a cached prefix."""
    if calls < 2 or caching_kind(spec) is None:
        return False
    return estimate_tokens(system) + estimate_tokens(prefix) >= min_prefix_tokens(spec.model)


def cache_control(spec: JudgeSpec) -> dict[str, str]:
    mark = {"type": "ephemeral"}
    if spec.cache_ttl == "1h":
        mark["ttl"] = "1h"
    return mark


def cache_marked(
    spec: JudgeSpec, messages: list[dict[str, Any]], prefix_chars: int | Sequence[int] | None
) -> list[dict[str, Any]]:
    """The messages with Anthropic cache breakpoints on the system prompt and at the end of
    each cached part of the user message's prefix: its end (`prefix_chars`), or several ends in
    increasing order (a pairwise prefix also ends a part after its first response, which other
    comparisons showing that response first read; at most 3 here, 4 with the system prompt, the
    provider's limit); unchanged when the judge's provider has no explicit caching or the call
    has no shared prefix. The text sent is the same bytes."""
    ends = [prefix_chars] if isinstance(prefix_chars, int) else list(prefix_chars or ())
    if not ends or caching_kind(spec) != "explicit":
        return messages
    mark = cache_control(spec)
    first_user = next(i for i, m in enumerate(messages) if m.get("role") == "user")
    marked: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        content = message.get("content")
        if not isinstance(content, str):
            marked.append(message)
        elif message.get("role") == "system":
            marked.append({**message, "content": [text_block(content, mark)]})
        elif index == first_user:
            starts = [0, *ends[:-1]]
            blocks = [text_block(content[a:b], mark) for a, b in zip(starts, ends, strict=True)]
            marked.append({**message, "content": [*blocks, text_block(content[ends[-1] :])]})
        else:
            marked.append(message)
    return marked


def text_block(text: str, mark: dict[str, str] | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": text}
    if mark is not None:
        block["cache_control"] = mark
    return block
