"""The chat completions endpoint (OpenAI format): records, in-flight accounting, replies."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from aiohttp import web

from tests.support.judge_server.answers import Answerer, content_hash
from tests.support.judge_server.faults import (
    Fault,
    error_response,
    fault_response,
    finish_reason,
    format_refusal,
    garbled,
    seconds_header,
)
from tests.support.prompt_cache import ImplicitPromptCache


@dataclass
class RecordedRequest:
    model: str
    messages: list[dict[str, Any]]
    body: dict[str, Any]
    received_at: float
    fault: str | None = None
    usage: dict[str, int] | None = None  # the usage sent back with a completion
    batch_id: str | None = None
    cached_tokens: int = 0  # read from `prompt_cache` (what it held when the request arrived)
    answered_at: float | None = None  # when the reply was sent
    waiting: int = 0  # requests already at the server when it arrived (served or queued)
    generated: bool = False  # `slots` mode: it got a slot and was generated (in part at least)
    abandoned_at: float | None = None  # the client closed the connection before the reply

    def text(self) -> str:
        """Every message's content joined, to look for a token in the submission."""
        return "\n".join(str(m.get("content", "")) for m in self.messages)


@dataclass
class ServerStats:
    requests: list[RecordedRequest] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    rejected: int = 0  # 429s sent by `concurrency_limit`
    abandoned: int = 0  # requests whose client closed the connection before the reply


def word_tokens(text: str) -> int:
    return max(1, len(text.split()))


def completion_body(
    model: str,
    contents: list[str],
    prompt_tokens: int,
    reasoning: str | None,
    finish: str = "stop",
) -> dict:
    """A chat completion with one choice per content (several answer `n`), each ending with
    `finish`; the prompt is counted once, the completion tokens over every choice (as OpenAI
    bills them)."""
    completion_tokens = sum(word_tokens(content) for content in contents)
    choices = []
    for index, content in enumerate(contents):
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if reasoning is not None:
            message["reasoning_content"] = reasoning
        choices.append({"index": index, "message": message, "finish_reason": finish})
    return {
        "id": f"chatcmpl-{content_hash(contents, time.time_ns()) % 10**12}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": choices,
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def asks_reasoning(body: dict[str, Any]) -> bool:
    return "reasoning_effort" in body or "thinking" in body


def record_of(
    body: dict[str, Any], fault: Fault | None, batch_id: str | None = None, refused: bool = False
) -> RecordedRequest:
    """What the server records of a request (chat call or batch line); `refused`: its reply
    format was refused (recorded as the fault `format_refused`)."""
    return RecordedRequest(
        model=str(body.get("model")),
        messages=list(body.get("messages") or []),
        body=body,
        received_at=time.monotonic(),
        fault="format_refused" if refused else fault.kind if fault else None,
        batch_id=batch_id,
    )


POLL_S = 0.005  # how often a generating server looks at its connection


def client_left(request: web.Request) -> bool:
    """The client closed the connection (it gave up on the request)."""
    transport = request.transport
    return transport is None or transport.is_closing()


async def stay_connected(request: web.Request, seconds: float) -> bool:
    """Wait `seconds` (generating), looking at the connection; False as soon as the client
    has closed it."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while (left := end - loop.time()) > 0:
        if client_left(request):
            return False
        await asyncio.sleep(min(POLL_S, left))
    return not client_left(request)


class ChatEndpoints:
    """`JudgeServer`'s chat side; the attributes below are set by `JudgeServer.__init__`."""

    answer: Answerer
    reasoning: str | None
    latency: float
    retry_after: float
    hang_s: float
    echo_key: bool
    concurrency_limit: int | None
    refuses: frozenset[str]  # `response_format` types refused as llama-cpp-python refuses them
    slots: asyncio.Semaphore | None  # `slots` mode: served one per slot, the rest queued
    prompt_cache: ImplicitPromptCache | None  # OpenAI's automatic prompt caching
    stats: ServerStats
    _lock: threading.Lock
    _stopping: asyncio.Event | None
    # and, from `JudgeServer`: _next_fault(body) -> Fault | None

    def _completion(
        self, body: dict[str, Any], contents: list[str], finish: str = "stop"
    ) -> dict[str, Any]:
        """The 200 reply for `contents` (a choice each), with word-count usage and reasoning
        when asked for."""
        prompt_tokens = sum(word_tokens(str(m.get("content", ""))) for m in body["messages"])
        reasoning = self.reasoning if asks_reasoning(body) else None
        model = str(body.get("model"))
        return completion_body(model, contents, prompt_tokens, reasoning, finish)

    def _contents(self, body: dict[str, Any], fault: Fault | None) -> list[str]:
        """One answer per choice asked (`n`; at most `choice_limit`), each garbled by `fault`."""
        asked = body.get("n") if isinstance(body.get("n"), int) else 1
        count = max(1, min(asked, self.choice_limit or asked))
        answers = [self.answer(body if i == 0 else {**body, "choice": i}) for i in range(count)]
        return [garbled(fault, body, answer) for answer in answers]

    def _enter(self, record: RecordedRequest) -> bool:
        """Record the request; False when `concurrency_limit` refuses it (it is not in flight)."""
        with self._lock:
            self.stats.requests.append(record)
            record.waiting = self.stats.in_flight
            limit = self.concurrency_limit
            if limit is not None and self.stats.in_flight >= limit:
                self.stats.rejected += 1
                record.fault = "rate_limit"
                return False
            self.stats.in_flight += 1
            self.stats.max_in_flight = max(self.stats.max_in_flight, self.stats.in_flight)
            return True

    def _leave(self) -> None:
        with self._lock:
            self.stats.in_flight -= 1

    def _abandoned(self, record: RecordedRequest) -> None:
        with self._lock:
            self.stats.abandoned += 1
            record.abandoned_at = time.monotonic()

    async def _generate(self, request: web.Request, record: RecordedRequest) -> bool:
        """Take `latency` seconds to answer. In `slots` mode, in a slot (queued until one is
        free), watching the connection: False when the client left first, so the server stops
        generating, as a server that watches its connections does."""
        if self.slots is None:
            if self.latency > 0:
                await asyncio.sleep(self.latency)
            return True
        async with self.slots:
            if client_left(request):  # abandoned while queued: never generated
                return False
            record.generated = True
            return await stay_connected(request, self.latency)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        refused = format_refusal(body, self.refuses)
        if refused is not None:  # before any scripted fault, as the real server validates first
            with self._lock:
                self.stats.requests.append(record_of(body, None, refused=True))
            return refused
        fault = self._next_fault(body)
        record = record_of(body, fault)
        if self.prompt_cache is not None:
            record.cached_tokens = self.prompt_cache.lookup(body).read
        if not self._enter(record):
            return error_response(
                429, "too many requests", {"Retry-After": seconds_header(self.retry_after)}
            )
        try:
            if not await self._generate(request, record):
                self._abandoned(record)
                return error_response(499, "the client closed the connection")
            return await self._respond(
                body, fault, request.headers.get("Authorization", ""), record, request
            )
        finally:
            self._leave()

    async def _respond(
        self,
        body: dict[str, Any],
        fault: Fault | None,
        authorization: str,
        record: RecordedRequest | None = None,
        request: web.Request | None = None,
    ) -> web.StreamResponse:
        contents = self._contents(body, fault)
        if fault is not None:
            assert self._stopping is not None
            special = await fault_response(
                fault,
                authorization,
                echo_key=self.echo_key,
                retry_after=self.retry_after,
                stopping=self._stopping,
                hang_s=self.hang_s,
                left=None if request is None else partial(client_left, request),
            )
            if special is not None:
                if record is not None and request is not None and client_left(request):
                    self._abandoned(record)  # a hang the client gave up on
                return special
        reply = self._completion(body, contents, finish_reason(fault))
        if record is not None and record.cached_tokens:
            reply["usage"]["prompt_tokens_details"] = {"cached_tokens": record.cached_tokens}
        if self.prompt_cache is not None:
            self.prompt_cache.store(body)  # visible to the requests that arrive from now on
        if record is not None:
            record.usage = {k: reply["usage"][k] for k in ("prompt_tokens", "completion_tokens")}
            if record.cached_tokens:
                record.usage["cached_tokens"] = record.cached_tokens
            record.answered_at = time.monotonic()
        return web.json_response(reply)
