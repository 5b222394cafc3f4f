"""What went wrong in one judge call: its kind (`kinds.py`), whether to retry, and how long to wait.

Exceptions are mapped where they arise: each transport reads its own library's exceptions
(litellm: `transports/litellm_errors.py`; aiohttp: `transports/native.py`; httpx and batch
result lines: `batch/`) into a `ProviderError`, the provider's real HTTP status and message
plus what the transport knows beyond them (a timeout, an unreachable host, an overload named in
the body). `classify` turns that plain value into a `JudgeFailure` (or a `JudgeAuthError`) by
one table of statuses and kinds; it never looks at an exception.

Every text built here goes through `redact`, so an API key echoed by a provider (some put it in
their 401 message) never reaches a vote, a log line or an exception we raise.
"""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from autorubric_cli.errors import JudgeError
from autorubric_cli.judges.policy.kinds import FailureKind
from autorubric_cli.judges.policy.providers import (
    FORMAT_REFUSAL,
    OVERLOAD_STATUS,
    OVERLOAD_TEXT,
    RETRY_DELAY,
)

STATUS_KINDS = {
    401: FailureKind.AUTH,
    403: FailureKind.AUTH,
    408: FailureKind.TIMEOUT,
    409: FailureKind.SERVER,
    429: FailureKind.RATE_LIMIT,
    529: FailureKind.OVERLOADED,
}
"""Statuses with a kind of their own; otherwise 5xx (and a garbled 2xx) is `server`, any other
4xx `request`, and no status at all `error` unless the transport named a kind."""
HOPELESS_STATUS = frozenset({400, 404})  # wrong model, path or request shape: retries won't fix
KEY_LIKE = re.compile(r"\b(?:sk|pk|rk)[-_][A-Za-z0-9_\-]{8,}|(Bearer\s+)[^\s\"']+")
MAX_DETAIL = 300


class JudgeAuthError(JudgeError):
    """The provider refused the credentials (HTTP 401/403): the run stops."""

    category = FailureKind.AUTH


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


@dataclass(frozen=True)
class ProviderError:
    """What a transport read from a failed call, in plain values.

    `status`: the HTTP status the provider sent (None: no reply). `message`: its text (redacted
    by `classify`). `kind`: set when the transport knows more than the status says (a timeout,
    a dropped connection, an overload named in the body, a reply the client library could not
    read). `unreachable`: "connection refused", "unknown host" or "cannot connect" when the
    endpoint could not be reached at all. `per_request`: a 400 about this request only (context
    window, content policy), which does not make the judge look broken.
    """

    status: int | None
    message: str
    kind: FailureKind | None = None
    retry_after: float | None = None
    unreachable: str | None = None
    per_request: bool = False


def kind_of(error: ProviderError) -> FailureKind:
    """The failure's kind: the transport's word, else the status table."""
    if error.kind is not None:
        return error.kind
    status = error.status
    if status is None:
        return FailureKind.ERROR
    if status in STATUS_KINDS:
        return STATUS_KINDS[status]
    if status >= 500 or status < 300:  # < 300: a 200 whose body is not a completion
        return FailureKind.SERVER
    return FailureKind.REQUEST


def classify(
    error: ProviderError,
    *,
    judge_id: str,
    secret: str | None,
    key_env: str | None = None,
    api_base: str | None = None,
) -> JudgeFailure | JudgeAuthError:
    """A `JudgeFailure` for the retry loop, or a `JudgeAuthError` that stops the run.

    Texts name the real cause: "connection refused to http://...", not "HTTP 500".
    """
    if error.unreachable is not None:
        where = api_base or "the provider"
        detail = f"{error.unreachable} to {where}"
        return JudgeFailure(FailureKind.CONNECTION, detail, hopeless=True)
    kind = kind_of(error)
    if kind is FailureKind.AUTH:
        where = f"the key in ${key_env}" if key_env else "its API key"
        return JudgeAuthError(
            f"{FailureKind.AUTH}: judge {judge_id!r} was refused by the provider "
            f"(HTTP {error.status}); check {where} and the model's access"
        )
    message = short(redact(error.message, secret))
    if kind is FailureKind.OVERLOADED:
        message = f"the provider is overloaded; {message}"
    detail = message if error.status is None else f"HTTP {error.status}: {message}"
    # a refused reply format is the dialect's, not the judge's: the judge switches (judge.py)
    about_judge = not error.per_request and kind is not FailureKind.FORMAT
    hopeless = error.status in HOPELESS_STATUS and about_judge
    return JudgeFailure(
        kind, detail, retry_after=error.retry_after, hopeless=hopeless or kind.hopeless
    )


def overloaded(status: int | None, text: str) -> bool:
    """The provider says it is overloaded: Anthropic's 529 `overloaded_error`, or a 5xx whose
    body names it (Gemini's 503 `UNAVAILABLE` "The model is overloaded")."""
    if status in OVERLOAD_STATUS:
        return True
    return (status is None or status >= 500) and bool(OVERLOAD_TEXT.search(text))


def refused_format(status: int | None, text: str) -> bool:
    """The server refused the request's reply format: a 4xx/5xx (other than the statuses with
    a kind of their own: auth, rate limit, timeout) whose text names it (`FORMAT_REFUSAL`)."""
    if status is None or status < 400 or status in STATUS_KINDS:
        return False
    return bool(FORMAT_REFUSAL.search(text))


def cut_off(max_tokens: int | None) -> JudgeFailure:
    """A reply the provider cut off at its token limit (`finish_reason: length`, Anthropic's
    `stop_reason: max_tokens`, Gemini's `finishReason: MAX_TOKENS`, as litellm maps them)."""
    limit = (
        f"max_tokens ({max_tokens})"
        if max_tokens is not None
        else "the server's token limit (max_tokens is not set)"
    )
    return JudgeFailure(FailureKind.TRUNCATED, f"the reply was cut off at {limit}")


def retry_hint(headers: list[Mapping[str, Any]], text: str) -> float | None:
    """The provider's wait, wherever it puts it: a `retry-after-ms` or `Retry-After` header,
    else Gemini's `RetryInfo.retryDelay` in the error body ("3s")."""
    for found in headers:
        lowered = {str(k).lower(): v for k, v in found.items()}
        milliseconds = lowered.get("retry-after-ms")
        if milliseconds:
            seconds = parse_retry_after(str(milliseconds))
            if seconds is not None:
                return seconds / 1000.0
        value = lowered.get("retry-after")
        if value:
            return parse_retry_after(str(value))
    delay = RETRY_DELAY.search(text)
    return float(delay.group(1)) if delay else None


def http_error(
    status: int, message: str, headers: Mapping[str, Any], body: str = "", **known: Any
) -> ProviderError:
    """The `ProviderError` of an HTTP reply read by our own client (aiohttp, httpx, a batch
    result line): its status, the provider's message, its retry hint, an overload it names."""
    text = f"{message}\n{body}"
    kind = FailureKind.OVERLOADED if overloaded(status, text) else None
    if kind is None and refused_format(status, text):
        kind = FailureKind.FORMAT
    return ProviderError(
        status, message, kind=kind, retry_after=retry_hint([headers], text), **known
    )


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
