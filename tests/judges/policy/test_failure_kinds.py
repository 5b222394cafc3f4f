"""Failure kinds (judges/policy/kinds.py): the strings written to error votes stay what they
were, and each decision on the call path (retry, wait, slow down, blame) follows the kind's
row in the one table, whatever the kind."""

from __future__ import annotations

import asyncio

import orjson
import pytest

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.judge import Judge
from autorubric_cli.judges.policy.failures import JudgeAuthError, JudgeFailure
from autorubric_cli.judges.policy.kinds import RULES, FailureKind
from autorubric_cli.judges.policy.retry import RetryPolicy
from autorubric_cli.judges.stats import CallStats
from autorubric_cli.judges.transports.litellm_errors import litellm_failure
from autorubric_cli.judges.transports.simulated import SimulatedTransport
from autorubric_cli.judges.transports.worker_wire import outcome_of, reply_to

# value: (retried by default, shrinks the adaptive limit, waits before the next attempt,
#         hopeless by default, blames the judge by default)
EXPECTED = {
    "rate_limit": (True, True, True, False, True),
    "overloaded": (True, True, True, False, True),
    "timeout": (True, False, True, False, True),
    "server": (True, False, True, False, True),
    "connection": (True, False, True, False, True),
    "request": (False, False, True, False, True),
    "client": (False, False, True, True, True),
    "error": (False, False, True, False, True),
    "parse": (True, False, False, False, True),
    "batch": (True, False, True, False, True),
    "worker": (True, False, True, False, False),
    "auth": (False, False, True, False, True),
    "truncated": (True, False, False, False, True),
    "format": (False, False, True, False, True),
}


def test_the_kinds_are_the_strings_error_votes_have_always_carried() -> None:
    assert [kind.value for kind in FailureKind] == list(EXPECTED)
    assert set(RULES) == set(FailureKind)


@pytest.mark.parametrize("value", list(EXPECTED))
def test_a_kind_is_written_as_its_plain_string(value: str) -> None:
    failure = JudgeFailure(value, "detail")
    assert type(failure.category) is FailureKind and failure.category == value
    assert str(failure) == failure.describe() == f"{value}: detail"
    assert orjson.dumps({"error": failure.describe(), "kind": failure.category}) == (
        f'{{"error":"{value}: detail","kind":"{value}"}}'.encode()
    )


@pytest.mark.parametrize("value", list(EXPECTED))
def test_a_failure_takes_its_defaults_from_its_kind(value: str) -> None:
    retried, _, _, hopeless, blames = EXPECTED[value]
    failure = JudgeFailure(FailureKind(value), "x")
    assert (failure.retryable, failure.hopeless, failure.blames_judge) == (
        retried,
        hopeless,
        blames,
    )


def test_the_situation_overrides_the_kind() -> None:
    cancelled = JudgeFailure(FailureKind.BATCH, "x", retryable=False, blames_judge=False)
    assert (cancelled.retryable, cancelled.blames_judge) == (False, False)
    refused = litellm_failure(ConnectionRefusedError("refused"), judge_id="j", secret=None)
    assert isinstance(refused, JudgeFailure) and refused.category is FailureKind.CONNECTION
    assert refused.hopeless and refused.retryable


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="rate-limit"):
        JudgeFailure("rate-limit", "x")


def test_a_refused_key_is_the_auth_kind() -> None:
    class Refused(Exception):
        status_code = 401

    refused = litellm_failure(Refused("no"), judge_id="j", secret=None)
    assert isinstance(refused, JudgeAuthError) and refused.category is FailureKind.AUTH
    assert str(refused).startswith("auth: judge 'j' was refused")


@pytest.mark.parametrize("value", list(EXPECTED))
def test_the_wait_before_the_next_attempt_follows_the_kind(value: str) -> None:
    policy = RetryPolicy(base_s=5.0, cap_s=5.0, retry_after_cap_s=60.0)
    waits = EXPECTED[value][2]
    assert policy.wait_s(3, JudgeFailure(value, "x", retry_after=2.0)) == (2.0 if waits else 0.0)


@pytest.mark.parametrize("value", list(EXPECTED))
def test_only_rate_limits_and_overloads_lower_the_judges_concurrency(value: str) -> None:
    async def scenario() -> tuple[int, int]:
        judge = Judge(
            JudgeSpec(model="openai/x", max_concurrency=16),
            SimulatedTransport(JudgeSpec(model="simulated/x")),
            max_attempts=1,
            policy=RetryPolicy(),
            stats=CallStats(),
            global_slots=asyncio.Semaphore(16),
        )
        before = judge.slots.current
        judge._call_failed(JudgeFailure(value, "x"), judge.slots.epoch)
        return before, judge.slots.current

    before, after = asyncio.run(scenario())
    assert (after < before) == EXPECTED[value][1]


@pytest.mark.parametrize("value", list(EXPECTED))
def test_a_failure_crosses_the_worker_socket_with_its_kind(value: str) -> None:
    sent = JudgeFailure(value, "x", retry_after=1.5, hopeless=True, blames_judge=False)
    wire = orjson.loads(orjson.dumps(reply_to(7, sent)))
    received = outcome_of(wire)
    assert isinstance(received, JudgeFailure) and received.category is FailureKind(value)
    assert (received.retryable, received.retry_after, received.hopeless) == (
        sent.retryable,
        1.5,
        True,
    )
    assert received.blames_judge is False
