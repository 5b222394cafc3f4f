"""What went wrong in one judge call: its kind (`kinds.py`), whether to retry, and how long to wait.

Every text built here goes through `redact`, so an API key echoed by a provider (some put it in
their 401 message) never reaches a vote, a log line or an exception we raise.
"""

from __future__ import annotations

import email.utils
import re
import socket
import time
from collections.abc import Mapping
from typing import Any

from autorubric_cli.errors import JudgeError
from autorubric_cli.judges.policy.kinds import FailureKind
from autorubric_cli.judges.policy.providers import (
    LITELLM_READ_BUGS,
    OVERLOAD_STATUS,
    OVERLOAD_TEXT,
    RETRY_DELAY,
)

RETRYABLE_STATUS = frozenset({408, 409, 429})
AUTH_STATUS = frozenset({401, 403})
HOPELESS_STATUS = frozenset({400, 404})  # wrong model, path or request shape: retries won't fix
PER_REQUEST_ERRORS = ("ContextWindowExceededError", "ContentPolicyViolationError")
KEY_LIKE = re.compile(r"\b(?:sk|pk|rk)[-_][A-Za-z0-9_\-]{8,}|(Bearer\s+)[^\s\"']+")
MAX_DETAIL = 300


class JudgeAuthError(JudgeError):
    """The provider refused the credentials (HTTP 401/403): the run stops."""

    category = FailureKind.AUTH


class HTTPStatusError(JudgeError):
    """An HTTP reply that is not a usable completion, as a transport without litellm sees it:
    the status, the headers (`Retry-After`) and the provider's message, shaped like litellm's
    exceptions (`status_code`, `headers`) so that `classify` reads both the same way. A garbled
    200 body is one, with status 200. `per_request`: the provider refused this request only
    (context window, content policy), not the judge."""

    def __init__(
        self,
        status_code: int,
        message: str,
        headers: Mapping[str, Any] | None = None,
        *,
        per_request: bool = False,
    ) -> None:
        self.status_code = status_code
        self.headers = headers or {}
        self.per_request = per_request
        super().__init__(message)


class JudgeFailure(JudgeError):
    """One failed attempt; its `category` (a `FailureKind`, or its value) prefixes the error
    vote (`rate_limit: ...`) and gives the defaults of the decisions below.

    `retryable`: asked again. `hopeless`: the judge itself looks broken (unreachable, unknown
    host, 404, 400), not this call; the circuit breaker (`breaker.py`) counts these.
    `blames_judge=False`: the call was stopped on purpose (a batch cancelled at the provider, a
    worker that exited), so the breaker does not count it.
    """

    def __init__(
        self,
        category: FailureKind | str,
        detail: str,
        *,
        retryable: bool | None = None,
        retry_after: float | None = None,
        hopeless: bool | None = None,
        blames_judge: bool | None = None,
    ) -> None:
        self.category = kind = FailureKind(category)
        self.detail = detail
        self.retryable = kind.retryable if retryable is None else retryable
        self.retry_after = retry_after
        self.hopeless = kind.hopeless if hopeless is None else hopeless
        self.blames_judge = kind.blames_judge if blames_judge is None else blames_judge
        super().__init__(self.describe())

    def describe(self) -> str:
        return f"{self.category}: {self.detail}"


def redact(text: str, secret: str | None) -> str:
    """Remove the key value and anything that looks like a key or a bearer token."""
    if secret:
        text = text.replace(secret, "***")
    return KEY_LIKE.sub(lambda m: (m.group(1) or "") + "***", text)


def short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_DETAIL else text[: MAX_DETAIL - 1] + "…"


def status_of(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def is_timeout(exc: BaseException) -> bool:
    return isinstance(exc, TimeoutError) or "Timeout" in type(exc).__name__


def is_connection_error(exc: BaseException) -> bool:
    return isinstance(exc, ConnectionError) or "Connection" in type(exc).__name__


def response_headers(exc: BaseException) -> list[Mapping[str, Any]]:
    """Header sources on a litellm exception; litellm keeps the provider's in the first."""
    found = [getattr(exc, "litellm_response_headers", None), getattr(exc, "headers", None)]
    response = getattr(exc, "response", None)
    found.append(getattr(response, "headers", None))
    return [h for h in found if h]


def parse_retry_after(value: str, now: float | None = None) -> float | None:
    """Seconds from a `Retry-After` value: a number of seconds or an HTTP date."""
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def retry_after_s(exc: BaseException) -> float | None:
    for headers in response_headers(exc):
        milliseconds = headers.get("retry-after-ms") or headers.get("Retry-After-Ms")
        if milliseconds:
            seconds = parse_retry_after(str(milliseconds))
            if seconds is not None:
                return seconds / 1000.0
        value = headers.get("retry-after") or headers.get("Retry-After")
        if value:
            return parse_retry_after(str(value))
    return None


def exception_texts(exc: BaseException) -> str:
    """The exception's text and, when litellm kept it, the provider's response body."""
    texts = [str(exc)]
    response = getattr(exc, "response", None)
    body = getattr(response, "text", None)
    if isinstance(body, str):
        texts.append(body)
    return "\n".join(texts)


def retry_hint_s(exc: BaseException) -> float | None:
    """The provider's wait, wherever it lives: a `Retry-After`/`retry-after-ms` header, else
    Gemini's `RetryInfo.retryDelay` in the error body ("3s")."""
    header = retry_after_s(exc)
    if header is not None:
        return header
    found = RETRY_DELAY.search(exception_texts(exc))
    return float(found.group(1)) if found else None


def is_overload(status: int | None, exc: BaseException) -> bool:
    """The provider says it is overloaded (Anthropic 529 `overloaded_error`, Gemini 503
    `UNAVAILABLE` "The model is overloaded"), whatever status litellm reports."""
    if status in OVERLOAD_STATUS:
        return True
    return (status is None or status >= 500) and bool(OVERLOAD_TEXT.search(exception_texts(exc)))


def litellm_read_bug(exc: BaseException) -> bool:
    """litellm failed to read a good reply (e.g. Groq without `service_tier`): not retryable."""
    text = exception_texts(exc)
    return any(pattern.search(text) for pattern in LITELLM_READ_BUGS)


def provider_failure(status: int | None, exc: BaseException, message: str) -> JudgeFailure | None:
    """Failures the provider table names (overload, a litellm reading bug); None otherwise.

    An overload is retried, honours the provider's hint and slows the judge down like a 429
    (`FailureKind.slows_down`); a reading bug stops after one attempt and counts toward the
    breaker.
    """
    status_text = f"HTTP {status}: " if status is not None else ""
    if is_overload(status, exc):
        return JudgeFailure(
            FailureKind.OVERLOADED,
            f"{status_text}the provider is overloaded; {message}",
            retry_after=retry_hint_s(exc),
        )
    if litellm_read_bug(exc):
        return JudgeFailure(
            FailureKind.CLIENT,
            f"litellm could not read the provider's reply (a litellm bug): {message}",
        )
    return None


def exception_chain(exc: BaseException) -> list[BaseException]:
    """`exc` and every exception it was raised from or while handling, outermost first."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def unreachable_cause(exc: BaseException) -> str | None:
    """ "connection refused" / "unknown host" / "cannot connect" when the endpoint could not be
    reached at all, else None.

    litellm reports a refused connection as InternalServerError, status 500, "Connection
    error.", so the status says nothing: the cause is read from the chain beneath (aiohttp's
    ClientConnectorError over ConnectionRefusedError or socket.gaierror; httpx.ConnectError).
    """
    chain = exception_chain(exc)
    if any(isinstance(e, ConnectionRefusedError) for e in chain):
        return "connection refused"
    if any(isinstance(e, socket.gaierror) or "DNSError" in type(e).__name__ for e in chain):
        return "unknown host"
    if any(type(e).__name__ in ("ClientConnectorError", "ConnectError") for e in chain):
        return "cannot connect"
    return None


def kind_of(status: int | None, exc: BaseException) -> FailureKind:
    """The failure's kind, decided by the status code first."""
    if status == 429:
        return FailureKind.RATE_LIMIT
    if status == 408 or is_timeout(exc):
        return FailureKind.TIMEOUT
    if status is not None and (status >= 500 or status < 300 or status in RETRYABLE_STATUS):
        # < 300: litellm's fast HTTP handler raises APIError with status 200 on a garbled body
        return FailureKind.SERVER
    if status is not None and 400 <= status < 500:
        return FailureKind.REQUEST
    if is_connection_error(exc):
        return FailureKind.CONNECTION
    return FailureKind.ERROR


def classify(
    exc: BaseException,
    *,
    judge_id: str,
    secret: str | None,
    key_env: str | None = None,
    api_base: str | None = None,
) -> Exception:
    """A `JudgeFailure` for the retry loop, or a `JudgeAuthError` that stops the run.

    Texts name the real cause: "connection refused to http://...", not "HTTP 500".
    """
    unreachable = unreachable_cause(exc)
    if unreachable is not None:
        where = api_base or "the provider"
        return JudgeFailure(FailureKind.CONNECTION, f"{unreachable} to {where}", hopeless=True)
    status = status_of(exc)
    message = short(redact(str(exc) or type(exc).__name__, secret))
    if status in AUTH_STATUS:
        where = f"the key in ${key_env}" if key_env else "its API key"
        return JudgeAuthError(
            f"{FailureKind.AUTH}: judge {judge_id!r} was refused by the provider (HTTP {status}); "
            f"check {where} and the model's access"
        )
    special = provider_failure(status, exc, message)
    if special is not None:
        return special
    detail = f"HTTP {status}: {message}" if status is not None else message
    hopeless = status in HOPELESS_STATUS and not any(
        type(e).__name__ in PER_REQUEST_ERRORS or getattr(e, "per_request", False) is True
        for e in exception_chain(exc)
    )
    return JudgeFailure(
        kind_of(status, exc), detail, retry_after=retry_hint_s(exc), hopeless=hopeless
    )
