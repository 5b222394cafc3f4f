"""Classification of failed calls, Retry-After parsing, backoff timing and redaction."""

from __future__ import annotations

import email.utils
import random

import httpx
import pytest

from autorubric_cli.core.config import RetryConfig
from autorubric_cli.judges.policy.failures import (
    JudgeAuthError,
    JudgeFailure,
    parse_retry_after,
    redact,
)
from autorubric_cli.judges.policy.retry import RetryPolicy
from autorubric_cli.judges.transports.litellm_errors import litellm_failure


class StatusError(Exception):
    def __init__(self, status: int | None, message: str = "boom", headers: dict | None = None):
        super().__init__(message)
        if status is not None:
            self.status_code = status
        self.litellm_response_headers = httpx.Headers(headers or {})


@pytest.mark.parametrize(
    ("status", "category", "retryable"),
    [
        (429, "rate_limit", True),
        (408, "timeout", True),
        (409, "server", True),
        (500, "server", True),
        (502, "server", True),
        (503, "server", True),
        (529, "overloaded", True),
        (400, "request", False),
        (404, "request", False),
        (422, "request", False),
    ],
)
def test_status_codes_decide_retries(status: int, category: str, retryable: bool) -> None:
    failure = litellm_failure(StatusError(status), judge_id="j", secret=None)
    assert isinstance(failure, JudgeFailure)
    assert (failure.category, failure.retryable) == (category, retryable)
    assert failure.describe().startswith(f"{category}: HTTP {status}")


@pytest.mark.parametrize("status", [401, 403])
def test_auth_statuses_stop_the_run(status: int) -> None:
    error = litellm_failure(StatusError(status), judge_id="gpt", secret=None, key_env="MY_KEY")
    assert isinstance(error, JudgeAuthError)
    assert "'gpt'" in str(error) and "$MY_KEY" in str(error) and str(status) in str(error)


def test_exceptions_without_status() -> None:
    timeout = litellm_failure(TimeoutError("slow"), judge_id="j", secret=None)
    connection = litellm_failure(ConnectionResetError("reset"), judge_id="j", secret=None)
    other = litellm_failure(ValueError("odd"), judge_id="j", secret=None)
    assert isinstance(timeout, JudgeFailure) and timeout.category == "timeout"
    assert isinstance(connection, JudgeFailure) and connection.category == "connection"
    assert connection.retryable
    assert isinstance(other, JudgeFailure) and not other.retryable


def test_retry_after_is_read_from_litellm_response_headers() -> None:
    failure = litellm_failure(
        StatusError(429, headers={"Retry-After": "7"}), judge_id="j", secret=None
    )
    assert isinstance(failure, JudgeFailure)
    assert failure.retry_after == 7.0
    ms = litellm_failure(
        StatusError(429, headers={"retry-after-ms": "250"}), judge_id="j", secret=None
    )
    assert isinstance(ms, JudgeFailure) and ms.retry_after == 0.25


def test_retry_after_http_date() -> None:
    now = 1_700_000_000.0
    value = email.utils.formatdate(now + 30, usegmt=True)
    parsed = parse_retry_after(value, now=now)
    assert parsed is not None and abs(parsed - 30) < 1.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after("-5") == 0.0


def test_wait_honours_retry_after_up_to_its_cap() -> None:
    policy = RetryPolicy(base_s=1.0, cap_s=2.0, retry_after_cap_s=10.0)
    assert policy.wait_s(1, JudgeFailure("rate_limit", "x", retryable=True, retry_after=3)) == 3
    assert policy.wait_s(1, JudgeFailure("rate_limit", "x", retryable=True, retry_after=99)) == 10
    assert policy.wait_s(4, JudgeFailure("parse", "x", retryable=True)) == 0.0


def test_policy_from_the_rubric_retry_section() -> None:
    config = RetryConfig(initial_wait=0.2, max_wait=4.0, max_retry_after=9.0)
    assert RetryPolicy.from_config(config) == RetryPolicy(0.2, 4.0, 9.0)
    assert RetryPolicy.from_config(RetryConfig()) == RetryPolicy()


def test_backoff_grows_exponentially_with_jitter_and_is_capped() -> None:
    policy = RetryPolicy(base_s=0.5, cap_s=3.0)
    rng = random.Random(0)
    for attempt, ceiling in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 3.0), (9, 3.0)]:
        waits = [policy.backoff_s(attempt, rng) for _ in range(300)]
        assert all(0.0 <= w <= ceiling for w in waits)
        assert max(waits) > 0.8 * ceiling
        assert len(set(waits)) > 250


def test_redact_removes_the_secret_and_key_lookalikes() -> None:
    text = "Incorrect API key provided: plain-value-123; also sk-abcdefghijklmnop, Bearer tok.en"
    clean = redact(text, "plain-value-123")
    assert "plain-value-123" not in clean
    assert "sk-abcdefghijklmnop" not in clean
    assert "tok.en" not in clean
    assert clean.count("***") == 3


def test_classified_text_never_holds_the_secret() -> None:
    secret = "hunter2-but-longer"
    failure = litellm_failure(StatusError(500, f"bad key {secret}"), judge_id="j", secret=secret)
    auth = litellm_failure(StatusError(401, f"bad key {secret}"), judge_id="j", secret=secret)
    assert secret not in str(failure) and secret not in str(auth)
