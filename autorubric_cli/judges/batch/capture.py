"""A batched call that goes through litellm exactly as a direct call does (docs/guides/batches.md).

For providers whose batch API takes the body of a direct call (Anthropic Message Batches, Gemini
batch mode), the body is not rebuilt by us: the call runs through `call_litellm`, the one direct
call path, with an httpx transport in place of the network. The transport receives the request
litellm built (URL, headers, JSON body: the provider transformation, structured output, thinking,
beta headers, all of it), hands it to the batch, and answers it with the batch's reply for that
request as an HTTP response, which litellm then parses, maps to exceptions and prices as it
would a direct reply. So a batch record equals a direct record apart from accounting; the cost is
replaced by the batch price (`batch_cost`).

Which call a request belongs to travels in a context variable (the transport is shared by every
call of a judge; litellm awaits it in the caller's task).
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import httpx
import orjson

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.pricing import known_unpriced
from autorubric_cli.judges.request import Call, Completion
from autorubric_cli.judges.transports.litellm import call_litellm, load_litellm


@dataclass(frozen=True)
class CapturedRequest:
    """What litellm would have sent for a direct call."""

    url: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass(frozen=True)
class RawReply:
    """A batch's answer to one request, as the direct endpoint would have answered it:
    an HTTP status and JSON body. `cached`: the answer of an identical call queued in the same
    batch (paid once by that call; recorded as cached, as single flight does)."""

    status: int
    body: dict[str, Any]
    cached: bool = False


Answer = Callable[[CapturedRequest], Awaitable[RawReply]]


@dataclass
class _Call:
    answer: Answer
    failure: BaseException | None = field(default=None)


_CURRENT: contextvars.ContextVar[_Call] = contextvars.ContextVar("autorubric_batch_call")


class BatchReplyTransport(httpx.AsyncBaseTransport):
    """Answers litellm's request with the batch reply instead of the network."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        call = _CURRENT.get()
        await request.aread()
        captured = CapturedRequest(
            url=str(request.url),
            headers=dict(request.headers),
            body=orjson.loads(request.content),
        )
        try:
            reply = await call.answer(captured)
        except Exception as exc:  # a batch-level failure: raised past litellm, unchanged
            call.failure = exc
            raise
        return httpx.Response(
            reply.status,
            content=orjson.dumps(reply.body),
            headers={"content-type": "application/json"},
            request=request,
        )


class BatchedLiteLLM:
    """One judge's litellm client whose network is its batches."""

    def __init__(self, spec: JudgeSpec, timeout: float) -> None:
        litellm = load_litellm()  # its environment first: offline cost map, production mode
        self.spec = spec
        self.timeout = timeout
        handler = litellm.llms.custom_httpx.http_handler.AsyncHTTPHandler
        self.client = handler(transport=BatchReplyTransport())

    async def complete(
        self,
        call: Call,
        answer: Answer,
        price: Callable[[ModuleType, Any, str], float | None],
    ) -> Completion:
        """The Completion litellm makes of the batch reply (cached when the reply is)."""
        seen: list[RawReply] = []

        async def answering(request: CapturedRequest) -> RawReply:
            reply = await answer(request)
            seen.append(reply)
            return reply

        captured = _Call(answering)
        token = _CURRENT.set(captured)
        try:
            completion = await call_litellm(
                self.spec, self.timeout, call, client=self.client, price=price
            )
        except Exception:
            if captured.failure is not None:
                raise captured.failure from None
            raise
        finally:
            _CURRENT.reset(token)
        completion.cached = bool(seen and seen[-1].cached)
        return completion


def batch_cost(provider: str) -> Callable[[ModuleType, Any, str], float | None]:
    """The reply's cost at the batch price: litellm's own batch rule (`*_batches` prices where
    its map has them, else half the list price, cache reads and writes included); None for a
    model litellm cannot price."""

    def price(litellm: ModuleType, response: Any, model: str) -> float | None:
        if known_unpriced(model):
            return None
        provider_model = model.split("/", 1)[1] if model.startswith(f"{provider}/") else model
        try:
            info = litellm.get_model_info(model=provider_model, custom_llm_provider=provider)
        except Exception:
            return None
        if info.get("input_cost_per_token") is None and not info.get(
            "input_cost_per_token_batches"
        ):
            return None
        prompt, completion = litellm.cost_calculator.batch_cost_calculator(
            response.usage, provider_model, provider, model_info=info
        )
        return float(prompt + completion)

    return price
