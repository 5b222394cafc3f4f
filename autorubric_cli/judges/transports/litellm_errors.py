"""litellm's exceptions read into `ProviderError`s, where they arise (as httpx maps httpcore's).

litellm re-labels provider errors: Anthropic's 529 `overloaded_error` and Gemini's 503
`UNAVAILABLE` both reach us as `InternalServerError`, status 500; a refused connection as
`APIConnectionError`, status 500, "Connection error.". The provider's own reply survives
beneath, in the exception chain (litellm 1.106.2 raises inside `except`): the provider
exception (`AnthropicError`, `VertexAIError`, ...) and httpx's `HTTPStatusError`, whose
`response` is the reply as received. So the status is the wire's when the chain holds one, the
headers are the first found along the chain (`litellm_response_headers`, `headers`,
`response.headers`), and an unreachable endpoint is read from the socket errors beneath.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Mapping
from typing import Any

import aiohttp
import httpx

from autorubric_cli.judges.policy.failures import (
    JudgeAuthError,
    JudgeFailure,
    ProviderError,
    classify,
    overloaded,
    refused_format,
    retry_hint,
)
from autorubric_cli.judges.policy.kinds import FailureKind
from autorubric_cli.judges.policy.providers import LITELLM_READ_BUGS
from autorubric_cli.judges.policy.timeouts import timed_out

PER_REQUEST_ERRORS = ("ContextWindowExceededError", "ContentPolicyViolationError")
"""litellm's classes for a 400 about one request, not the judge (context window, policy)."""


def exception_chain(exc: BaseException) -> list[BaseException]:
    """`exc` and every exception it was raised from or while handling, outermost first."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def unreachable(chain: list[BaseException]) -> str | None:
    """Why the endpoint could not be reached at all, from the socket errors beneath."""
    if any(isinstance(e, ConnectionRefusedError) for e in chain):
        return "connection refused"
    dns = (socket.gaierror, aiohttp.ClientConnectorDNSError)
    if any(isinstance(e, dns) for e in chain):
        return "unknown host"
    if any(isinstance(e, aiohttp.ClientConnectorError | httpx.ConnectError) for e in chain):
        return "cannot connect"
    return None


def about_one_request(chain: list[BaseException]) -> bool:
    litellm = sys.modules.get("litellm")  # not loaded: the exception is not litellm's
    if litellm is None:
        return False
    classes = tuple(getattr(litellm, name) for name in PER_REQUEST_ERRORS)
    return any(isinstance(e, classes) for e in chain)


def wire_reply(chain: list[BaseException]) -> httpx.Response | None:
    """The provider's reply as received, kept by httpx's `HTTPStatusError` beneath litellm's."""
    for e in reversed(chain):
        if isinstance(e, httpx.HTTPStatusError):
            return e.response
    return None


def headers_of(chain: list[BaseException]) -> list[Mapping[str, Any]]:
    found: list[Any] = []
    for e in chain:
        response = getattr(e, "response", None)
        found += [getattr(e, "litellm_response_headers", None), getattr(e, "headers", None)]
        found.append(getattr(response, "headers", None))
    return [h for h in found if h]


def kind_of(exc: BaseException, status: int | None, text: str) -> FailureKind | None:
    """What the status alone would not say: an overload, a litellm reading bug, a timeout or a
    lost connection without a status."""
    if overloaded(status, text):
        return FailureKind.OVERLOADED
    if refused_format(status, text):
        return FailureKind.FORMAT
    if any(bug.search(text) for bug in LITELLM_READ_BUGS):
        return FailureKind.CLIENT
    if status is not None:
        return None
    timeouts, lost = no_reply_classes()
    if isinstance(exc, timeouts):
        return FailureKind.TIMEOUT
    if isinstance(exc, lost):
        return FailureKind.CONNECTION
    return None


def no_reply_classes() -> tuple[tuple[type, ...], tuple[type, ...]]:
    """The exception classes of a call with no reply: (timed out, connection lost)."""
    openai = sys.modules.get("openai")  # litellm's files API raises the openai SDK's own
    timeouts: tuple[type, ...] = (TimeoutError, httpx.TimeoutException)
    lost: tuple[type, ...] = (ConnectionError, httpx.TransportError)
    if openai is not None:
        timeouts, lost = (*timeouts, openai.APITimeoutError), (*lost, openai.APIConnectionError)
    return timeouts, lost


def litellm_error(exc: BaseException) -> ProviderError:
    """The provider's status, message and hints in an exception litellm raised."""
    chain = exception_chain(exc)
    wire = wire_reply(chain)
    said = getattr(exc, "status_code", None)
    status = wire.status_code if wire is not None else said if isinstance(said, int) else None
    message = str(exc) or type(exc).__name__
    text = f"{message}\n{'' if wire is None else wire.text}"
    kind = kind_of(exc, status, text)
    if kind is FailureKind.CLIENT:
        status, message = (
            None,
            f"litellm could not read the provider's reply (a litellm bug): {message}",
        )
    return ProviderError(
        status,
        message,
        kind=kind,
        retry_after=retry_hint(headers_of(chain), text),
        unreachable=unreachable(chain),
        per_request=about_one_request(chain),
    )


def gave_up(chain: list[BaseException]) -> bool:
    """The client gave up at its timeout: a timeout exception and no reply from the provider
    (litellm labels its own timeout status 408, as if the provider had sent one)."""
    timeouts, _ = no_reply_classes()
    return wire_reply(chain) is None and any(isinstance(e, timeouts) for e in chain)


def litellm_failure(
    exc: BaseException,
    *,
    judge_id: str,
    secret: str | None,
    key_env: str | None = None,
    api_base: str | None = None,
    deadline: tuple[float, str] | None = None,
) -> JudgeFailure | JudgeAuthError:
    """`classify` of what litellm raised; a timeout names `deadline` (seconds, key)."""
    if deadline is not None and gave_up(exception_chain(exc)):
        return classify(timed_out(*deadline), judge_id=judge_id, secret=secret)
    error = litellm_error(exc)
    return classify(error, judge_id=judge_id, secret=secret, key_env=key_env, api_base=api_base)
