"""Providers' prompt caching, emulated for the loopback fakes (pure: no I/O, clock injected).

What each provider does (FIELD-NOTES, "Provider prompt caching"), as emulated here:

- OpenAI (`OpenAIPromptCache`): automatic. A prompt of at least 1,024 tokens is cached in
  128-token steps; the structured-output schema is part of the prefix (a different schema never
  matches). Usage: `prompt_tokens_details.cached_tokens`.
- Gemini (`GeminiPromptCache`): implicit, like OpenAI without the steps. Usage:
  `usageMetadata.cachedContentTokenCount`.
- Anthropic (`AnthropicPromptCache`): explicit. Only a prefix ending at a block that carries
  `cache_control` is cached (tools/schema, then system, then messages), from a minimum of 1,024
  tokens (2,048 on Haiku), for its TTL (5 minutes, or 1 hour with `ttl: "1h"`), refreshed on
  each hit. Usage: `cache_creation_input_tokens` (written this call), `cache_read_input_tokens`
  (read), `input_tokens` (the rest).

Every cache gives a call what was stored before the call arrived (`lookup`) and stores what the
call wrote only once it has finished (`store`): calls sent at the same instant all miss, as with
the real providers. A token is a whitespace-separated word (the fakes' own prompt token count)
unless `tokenize` says otherwise (the bench uses litellm's tokenizer, like the dry run).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Clock = Callable[[], float]
Tokenize = Callable[[str], list[Any]]
TTL_S = {"5m": 300.0, "1h": 3600.0}


def words(text: str) -> list[str]:
    return text.split()


def digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def content_text(content: Any) -> str:
    """A message's text: a string, or its text blocks concatenated."""
    if isinstance(content, str):
        return content
    return "".join(str(b.get("text", "")) for b in content or [] if b.get("type") == "text")


@dataclass
class CacheBill:
    """Prompt tokens of one call: read from the cache, written to it."""

    read: int = 0
    written: int = 0


@dataclass
class ImplicitPromptCache:
    """Automatic prefix caching (OpenAI; Gemini with `step=1`)."""

    minimum: int = 1024
    step: int = 128
    tokenize: Tokenize = words
    entries: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def tokens(self, body: dict[str, Any]) -> tuple[str, list[str]]:
        """(what must match before the prompt: model and schema, the prompt's tokens)."""
        schema = body.get("response_format")
        prompt = [
            t
            for m in body.get("messages") or []
            for t in self.tokenize(content_text(m.get("content")))
        ]
        return digest(body.get("model"), schema), prompt

    def lengths(self, total: int) -> range:
        return range(self.minimum, total + 1, self.step)

    def lookup(self, body: dict[str, Any]) -> CacheBill:
        head, prompt = self.tokens(body)
        if len(prompt) < self.minimum:
            return CacheBill()
        with self.lock:
            hits = [
                k for k in self.lengths(len(prompt)) if digest(head, prompt[:k]) in self.entries
            ]
        return CacheBill(read=max(hits, default=0))

    def store(self, body: dict[str, Any]) -> None:
        head, prompt = self.tokens(body)
        keys = {digest(head, prompt[:k]) for k in self.lengths(len(prompt))}
        with self.lock:
            self.entries |= keys


def OpenAIPromptCache(tokenize: Tokenize = words) -> ImplicitPromptCache:  # noqa: N802
    return ImplicitPromptCache(minimum=1024, step=128, tokenize=tokenize)


def GeminiPromptCache(tokenize: Tokenize = words) -> ImplicitPromptCache:  # noqa: N802
    return ImplicitPromptCache(minimum=1024, step=1, tokenize=tokenize)


def anthropic_minimum(model: str) -> int:
    return 2048 if "haiku" in model else 1024


@dataclass
class AnthropicPromptCache:
    """Explicit breakpoints (`cache_control`) on an Anthropic Messages request body."""

    clock: Clock = time.monotonic
    tokenize: Tokenize = words
    entries: dict[str, float] = field(default_factory=dict)  # key -> expiry
    lock: threading.Lock = field(default_factory=threading.Lock)

    def breakpoints(self, body: dict[str, Any]) -> tuple[str, list[str], list[tuple[int, float]]]:
        """(model and schema, prompt tokens, (prefix length, TTL) at each breakpoint)."""
        schema = body.get("output_format") or body.get("tools")
        blocks: list[dict[str, Any]] = []
        system = body.get("system")
        blocks += [{"type": "text", "text": system}] if isinstance(system, str) else system or []
        for message in body.get("messages") or []:
            content = message.get("content")
            blocks += [{"type": "text", "text": content}] if isinstance(content, str) else content
        prompt: list[str] = []
        marks: list[tuple[int, float]] = []
        for block in blocks:
            prompt += self.tokenize(str(block.get("text", "")))
            mark = block.get("cache_control")
            if mark:
                marks.append((len(prompt), TTL_S[mark.get("ttl", "5m")]))
        return digest(body.get("model"), schema), prompt, marks

    def prompt_tokens(self, body: dict[str, Any]) -> int:
        """The tokens of every text block, as the cache counts them (what the call is billed)."""
        return len(self.breakpoints(body)[1])

    def lookup(self, body: dict[str, Any]) -> CacheBill:
        head, prompt, marks = self.breakpoints(body)
        minimum = anthropic_minimum(str(body.get("model")))
        now = self.clock()
        read = 0
        with self.lock:
            for length, ttl in reversed(marks):
                key = digest(head, prompt[:length])
                if self.entries.get(key, -1.0) > now:
                    self.entries[key] = now + ttl  # a hit refreshes the entry's lifetime
                    read = length
                    break
        last = max((length for length, _ in marks if length >= minimum), default=0)
        return CacheBill(read=read, written=max(0, last - read))

    def store(self, body: dict[str, Any]) -> None:
        head, prompt, marks = self.breakpoints(body)
        minimum = anthropic_minimum(str(body.get("model")))
        expiry = self.clock()
        with self.lock:
            for length, ttl in marks:
                if length >= minimum:
                    key = digest(head, prompt[:length])
                    self.entries[key] = max(self.entries.get(key, 0.0), expiry + ttl)
