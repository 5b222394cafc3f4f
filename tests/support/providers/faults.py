"""Fault scripting shared by the provider fakes: what to do wrong, in arrival order.

A fault names a behaviour, not a wire shape: each fake renders it in its provider's format
(Anthropic 529 `overloaded_error`, Gemini 503 `UNAVAILABLE`, ...). `retry_after` is the
provider's hint in seconds, sent wherever that provider sends it (a header, the error body).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

FaultKind = Literal[
    "rate_limit",  # 429 with the provider's own retry hint
    "overloaded",  # the provider's overload answer (529, 503 UNAVAILABLE, ...)
    "server_error",  # 500
    "bad_request",  # 400
    "unauthorized",  # 401
    "forbidden",  # 403
    "prose",  # a 200 whose text is not the JSON asked for
    "empty",  # a 200 with an empty text
    "truncated",  # a 200 whose text stops at the token limit, with the provider's word for it
]


@dataclass(frozen=True)
class Fault:
    kind: FaultKind
    retry_after: float = 0.05


class FaultScript:
    """A thread-safe queue of faults, one per request, consumed in arrival order."""

    def __init__(self) -> None:
        self._queue: deque[Fault] = deque()
        self._lock = threading.Lock()

    def extend(self, faults: Iterable[Fault | FaultKind]) -> None:
        with self._lock:
            self._queue.extend(f if isinstance(f, Fault) else Fault(f) for f in faults)

    def clear(self) -> None:
        with self._lock:
            self._queue.clear()

    def next(self) -> Fault | None:
        with self._lock:
            return self._queue.popleft() if self._queue else None


PROSE = "I think the submission mostly meets the criterion, but it is hard to say."


def reply_text(fault: Fault | None, answer: str) -> str:
    """The text of a 200 reply: the answer, or the unusable text a fault asks for (cut off:
    its first 60 %, as a model stopped at its token limit leaves it)."""
    if fault is not None and fault.kind == "prose":
        return PROSE
    if fault is not None and fault.kind == "empty":
        return ""
    if fault is not None and fault.kind == "truncated":
        return answer[: max(1, len(answer) * 3 // 5)]
    return answer


def stop_word(fault: Fault | None, done: str, cut: str) -> str:
    """The provider's word for why the reply ended: `cut` (its token limit: Anthropic and
    Bedrock `max_tokens`, Gemini `MAX_TOKENS`, OpenAI and Ollama `length`) under a
    `truncated` fault, else `done`."""
    return cut if fault is not None and fault.kind == "truncated" else done


ERROR_KINDS = frozenset(
    {"rate_limit", "overloaded", "server_error", "bad_request", "unauthorized", "forbidden"}
)


def retry_headers(fault: Fault) -> dict[str, str] | None:
    """OpenAI's and Azure's retry hint on a 429: `retry-after` (seconds) and `retry-after-ms`."""
    if fault.kind != "rate_limit":
        return None
    seconds = str(max(1, round(fault.retry_after)))
    return {"retry-after": seconds, "retry-after-ms": str(round(fault.retry_after * 1000))}


def is_error(fault: Fault | None) -> bool:
    return fault is not None and fault.kind in ERROR_KINDS
