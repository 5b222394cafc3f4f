"""Faults: an explicit script consumed in arrival order, or a rate independent of that order.

The k-th request with a given content faults iff hash(fault_seed, content, k) falls under
`fault_rate`. `fault_response` is the HTTP answer a fault gives on the chat endpoint.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from aiohttp import web

from tests.support.judge_server.answers import out_of_range_answer

FaultKind = Literal[
    "rate_limit",
    "server_error",
    "hang",
    "malformed",
    "out_of_range",
    "unauthorized",
    "bad_request",
    "not_found",
    "truncated",
]
HANG_POLL_S = 0.005  # how often a hung request looks at its connection
FAULT_KINDS: tuple[str, ...] = FaultKind.__args__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour; `retry_after` (seconds) is sent with `rate_limit`."""

    kind: FaultKind
    retry_after: float | None = None
    status: int | None = None


def error_response(
    status: int, message: str, headers: dict[str, str] | None = None
) -> web.Response:
    body = {"error": {"message": message, "type": "server_error", "code": str(status)}}
    return web.json_response(body, status=status, headers=headers)


def seconds_header(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


BATCH_STATUSES = {
    "rate_limit": 429,
    "server_error": 500,
    "unauthorized": 401,
    "bad_request": 400,
    "hang": 504,
}


async def fault_response(
    fault: Fault,
    authorization: str,
    *,
    echo_key: bool,
    retry_after: float,
    stopping: asyncio.Event,
    hang_s: float,
    left: Callable[[], bool] | None = None,
) -> web.Response | None:
    """The error a fault answers with; None for faults that garble a 200 answer instead.

    A 401 echoes the key, as some real providers do; with `echo_key` every error does, so
    tests prove we never repeat it. A hang lasts `hang_s`, until the server stops, or until
    `left()` says the client closed the connection.
    """
    key = authorization.removeprefix("Bearer ").strip()
    echo = f" (key {key})" if echo_key else ""
    if fault.kind == "rate_limit":
        wait = retry_after if fault.retry_after is None else fault.retry_after
        return error_response(429, "rate limited" + echo, {"Retry-After": seconds_header(wait)})
    if fault.kind == "server_error":
        return error_response(fault.status or 500, "internal error" + echo)
    if fault.kind == "unauthorized":
        return error_response(fault.status or 401, f"Incorrect API key provided: {key}")
    if fault.kind == "bad_request":
        return error_response(400, "bad request" + echo)
    if fault.kind == "not_found":
        return error_response(404, "The model `x` does not exist" + echo)
    if fault.kind == "hang":
        await hang(stopping, hang_s, left or (lambda: False))
        return error_response(504, "hung until the client gave up")
    return None


async def hang(stopping: asyncio.Event, seconds: float, left: Callable[[], bool]) -> None:
    """Until the server stops, `seconds` pass or the client leaves, whichever comes first."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while not stopping.is_set() and not left() and loop.time() < end:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), min(HANG_POLL_S, end - loop.time()))


def garbled(fault: Fault | None, body: dict[str, Any], content: str) -> str:
    """The 200 answer's content under a fault that garbles it (malformed, out of range, cut
    off at the token limit: `cut_off`)."""
    if fault is not None and fault.kind == "malformed":
        return "this is not json {"
    if fault is not None and fault.kind == "out_of_range":
        return out_of_range_answer(body, content)
    if fault is not None and fault.kind == "truncated":
        return cut_off(content)
    return content


def cut_off(content: str) -> str:
    """An answer as a model stopped at its token limit leaves it: the first 60 % of its text
    (a per-item answer keeps its complete leading entries, a short one is cut mid-string)."""
    return content[: max(1, len(content) * 3 // 5)]


def finish_reason(fault: Fault | None) -> str:
    """OpenAI's `finish_reason`: `length` for an answer cut off at the token limit."""
    return "length" if fault is not None and fault.kind == "truncated" else "stop"


# llama-cpp-python 0.3.36's server refuses a `response_format` type it does not know with an
# HTTP 500 (its pydantic validation error, reported as an internal error), measured for real
LLAMA_CPP_PYTHON_REFUSAL = (
    "1 validation error:\n  {{'type': 'literal_error', 'loc': ('body', 'response_format', "
    "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': '{kind}', 'ctx': "
    "{{'expected': \"'text' or 'json_object'\"}}}}\n\n  File \"/site-packages/llama_cpp/server/"
    'app.py", line 376, in create_chat_completion\n    POST /v1/chat/completions'
)


def format_refusal(body: dict[str, Any], refuses: frozenset[str]) -> web.Response | None:
    """llama-cpp-python's refusal of a `response_format` type in `refuses`; None otherwise."""
    kind = (body.get("response_format") or {}).get("type")
    if kind not in refuses:
        return None
    message = LLAMA_CPP_PYTHON_REFUSAL.format(kind=kind)
    error = {"message": message, "type": "internal_server_error", "param": None, "code": None}
    return web.json_response({"error": error}, status=500)
