"""Batch APIs litellm does not submit to, spoken over HTTP (docs/guides/batches.md): Anthropic
Message Batches and Gemini batch mode. Both take the requests inline in the create call; each
request is the body litellm builds for the direct call (`batch/capture.py`), and each answer goes
back through litellm as the direct reply would. The provider specifics (endpoints, states, result
shapes, limits, how an orphan is recognised) are in `batch/anthropic.py` and `batch/gemini.py`; this
module holds what they share: HTTP with our retry policy, and the litellm round trip.

httpx, not the providers' SDKs: litellm already depends on it (and its client is how the
request is captured), the four or five endpoints each provider needs are plain JSON, and an SDK
would bring its own retries, timeouts and types to keep in step with the ones we record.
"""

from __future__ import annotations

import os
from abc import abstractmethod
from collections.abc import Callable
from typing import Any

import httpx
import orjson

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.batch.api import FILE_TIMEOUT_S
from autorubric_cli.judges.batch.base import BatchInfo, Enqueue, ProviderBatches
from autorubric_cli.judges.batch.capture import (
    BatchedLiteLLM,
    CapturedRequest,
    RawReply,
    batch_cost,
)
from autorubric_cli.judges.batch.lines import Result
from autorubric_cli.judges.policy.failures import (
    JudgeFailure,
    ProviderError,
    classify,
    http_error,
)
from autorubric_cli.judges.policy.kinds import FailureKind
from autorubric_cli.judges.policy.retry import RetryPolicy, retrying
from autorubric_cli.judges.request import Call, Completion
from autorubric_cli.judges.transports.litellm import api_key_for
from autorubric_cli.judges.transports.litellm_errors import exception_chain, unreachable

LIST_PAGE = 100


class NativeBatches(ProviderBatches):
    """What both native batch APIs share; subclasses say where and how."""

    provider = ""
    inline = True
    limits = (100_000, 250 * 1024 * 1024)
    key_envs: tuple[str, ...] = ()
    found_by = ""

    def __init__(
        self, spec: JudgeSpec, model: str, timeout: float, policy: RetryPolicy, attempts: int
    ) -> None:
        self.spec = spec
        self.model = model
        self.timeout = spec.timeout or timeout
        self.policy = policy
        self.attempts = attempts
        self.litellm = BatchedLiteLLM(spec, timeout)
        self.price_of = batch_cost(self.provider)
        self._http: httpx.AsyncClient | None = None

    @property
    def secret(self) -> str | None:
        """The key litellm would use: the judge's `api_key_env`, else the provider's variable."""
        key = api_key_for(self.spec)
        if key is not None:
            return key
        return next((os.environ[n] for n in self.key_envs if os.environ.get(n)), None)

    @abstractmethod
    def auth_headers(self) -> dict[str, str]: ...

    # -- HTTP ------------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        url: str,
        *,
        body: bytes | None = None,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
    ) -> bytes:
        """One control call under our retry policy; the reply's bytes."""
        if self._http is None:
            self._http = httpx.AsyncClient(trust_env=False)
        http = self._http
        sent = {**self.auth_headers(), "content-type": "application/json", **(headers or {})}

        async def once() -> bytes:
            try:
                reply = await http.request(
                    method,
                    url,
                    content=body,
                    params=params,
                    headers=sent,
                    timeout=timeout or self.timeout,
                )
            except httpx.TransportError as exc:
                error = httpx_error(exc)
            else:
                if reply.status_code < 300:
                    return bytes(reply.content)
                error = http_error(reply.status_code, reply.text, reply.headers)
            spec = self.spec
            raise classify(
                error, judge_id=spec.judge_id, secret=self.secret, key_env=spec.api_key_env
            )

        return await retrying(self.policy, self.attempts)(once)

    async def json(self, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        data = orjson.loads(await self.request(method, url, **kwargs))
        return data if isinstance(data, dict) else {}

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    # -- the batch transport's interface ---------------------------------------------------

    @abstractmethod
    def line(self, key: str, request: CapturedRequest) -> bytes:
        """One request of the create call: one JSON line, newline included."""

    async def start(
        self, data: bytes, local: str, metadata: dict[str, str], uploaded: Callable[[str], None]
    ) -> BatchInfo:
        """Create the batch with its requests inline (`data`: one JSON request per line)."""
        return await self.create(b"[" + b",".join(data.splitlines()) + b"]", local)

    @abstractmethod
    async def create(self, requests: bytes, local: str) -> BatchInfo: ...

    async def answered(self, result: Result, call: Call) -> Completion:
        """The batch's reply, parsed by litellm exactly as the direct reply would be."""
        assert isinstance(result, RawReply)

        async def replay(request: CapturedRequest) -> RawReply:
            return result

        return await self.litellm.complete(call, replay, self.price_of)

    async def ask(self, enqueue: Enqueue, key: str, call: Call) -> Completion:
        """Let litellm build the direct request, queue it, and parse the batch's reply."""

        async def batched(request: CapturedRequest) -> RawReply:
            result = await enqueue(key, self.line(key, request))
            assert isinstance(result, RawReply)
            return result

        return await self.litellm.complete(call, batched, self.price_of)


def httpx_error(exc: httpx.TransportError) -> ProviderError:
    """An httpx failure with no reply: a timeout, or a connection refused, unknown or lost."""
    kind = FailureKind.TIMEOUT if isinstance(exc, httpx.TimeoutException) else None
    reached = unreachable(exception_chain(exc))
    return ProviderError(
        None,
        str(exc) or type(exc).__name__,
        kind=kind or FailureKind.CONNECTION,
        unreachable=reached,
    )


def reply_failure(batch_id: str, kind: str) -> JudgeFailure:
    """A request the batch ended without answering: expired (asked again) or cancelled (an
    error vote: someone cancelled on purpose, the judge is not to blame)."""
    cancelled = kind in ("canceled", "cancelled")
    said = "cancelled" if cancelled else kind
    return JudgeFailure(
        FailureKind.BATCH,
        f"batch {batch_id} ended {said} without an answer for this request",
        retryable=not cancelled,
        blames_judge=not cancelled,
    )


__all__ = ["FILE_TIMEOUT_S", "LIST_PAGE", "NativeBatches", "reply_failure"]
