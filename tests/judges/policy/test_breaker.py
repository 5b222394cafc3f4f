"""The circuit breaker over the real litellm path: thresholds, held error votes, causes."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

import pytest

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.policy.breaker import JudgeUnavailable
from autorubric_cli.judges.policy.failures import JudgeFailure
from autorubric_cli.judges.policy.retry import RetryPolicy
from autorubric_cli.judges.request import Call
from autorubric_cli.judges.transports.litellm import LiteLLMTransport
from autorubric_cli.judges.transports.litellm_errors import litellm_failure
from tests.support import TEST_KEY_ENV, closed_port, http_judge, make_item, make_rubric
from tests.support.judge_server import JudgeServer

FAST = RetryPolicy(base_s=0.01, cap_s=0.02, retry_after_cap_s=0.05)


async def grade(api_base: str, samples: int, **grader: Any) -> CriterionGrader:
    # a request per sample: the samples are the calls whose failures the breaker counts
    judge = http_judge(api_base, samples=samples, max_concurrency=1, sample_request="separate")
    engine = CriterionGrader(make_rubric([judge], **grader), seed=3, retry=FAST)
    try:
        engine.last = await engine.grade(make_item())  # type: ignore[attr-defined]
    finally:
        await engine.aclose()
    return engine


@pytest.mark.parametrize("threshold", [2, 4])
async def test_consecutive_hopeless_failures_trip_at_the_threshold(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str, threshold: int
) -> None:
    server = judge_server_factory(fault_rate=1.0, fault_kinds=["not_found"])
    with pytest.raises(JudgeUnavailable, match="not usable: request: HTTP 404") as caught:
        await grade(server.api_base, 10, breaker={"consecutive_failures": threshold})
    assert server.request_count == threshold
    assert f"({threshold} calls in a row)" in str(caught.value)


@pytest.mark.parametrize(("threshold", "trips"), [(4, True), (5, False)])
async def test_an_answer_resets_the_streak_and_releases_held_error_votes(
    judge_server_factory: Callable[..., JudgeServer],
    judge_api_key: str,
    threshold: int,
    trips: bool,
) -> None:
    server = judge_server_factory(script=["bad_request"] * 4)
    settings = {"breaker": {"consecutive_failures": threshold}}
    if trips:
        with pytest.raises(JudgeUnavailable):
            await grade(server.api_base, 8, **settings)
        assert server.request_count == 4
        return
    engine = await grade(server.api_base, 8, **settings)
    votes = engine.last.criteria[0].votes  # type: ignore[attr-defined]
    assert [v.error is not None for v in votes].count(True) == 4
    assert all(v.error.startswith("request: HTTP 400") for v in votes if v.error)
    assert server.request_count == 8


@pytest.mark.parametrize(("failed_votes", "trips"), [(3, True), (4, False)])
async def test_failed_votes_in_a_row_trip_at_the_threshold(
    judge_server_factory: Callable[..., JudgeServer],
    judge_api_key: str,
    failed_votes: int,
    trips: bool,
) -> None:
    """500s are transient: retried, never hopeless; only spent votes count here."""
    server = judge_server_factory(fault_rate=1.0, fault_kinds=["server_error"])
    settings = {"max_attempts": 2, "breaker": {"failed_votes": failed_votes}}
    if trips:
        with pytest.raises(JudgeUnavailable, match="3 votes in a row failed"):
            await grade(server.api_base, 3, **settings)
    else:
        engine = await grade(server.api_base, 3, **settings)
        assert engine.stats.error_votes == 3  # nothing left to decide: released as errors
    assert server.request_count == 6


async def test_a_closed_port_is_connection_refused_not_http_500(judge_api_key: str) -> None:
    port = closed_port()
    api_base = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(JudgeUnavailable) as caught:
        await grade(api_base, 8)
    assert f"connection: connection refused to {api_base}" in str(caught.value)
    assert "500" not in str(caught.value)


@pytest.mark.parametrize(
    ("kind", "category", "hopeless", "retryable"),
    [
        ("not_found", "request", True, False),
        ("bad_request", "request", True, False),
        ("rate_limit", "rate_limit", False, True),
        ("server_error", "server", False, True),
        ("unknown_host", "connection", True, True),
        ("refused", "connection", True, True),
    ],
)
async def test_litellm_exceptions_classify_by_their_real_cause(
    judge_server_factory: Callable[..., JudgeServer],
    judge_api_key: str,
    kind: str,
    category: str,
    hopeless: bool,
    retryable: bool,
) -> None:
    """Guards the litellm version and HTTP handler we run with (docs/design/judge-calls.md)."""
    if kind == "unknown_host":
        api_base = "http://no-such-host.invalid/v1"
    elif kind == "refused":
        api_base = f"http://127.0.0.1:{closed_port()}/v1"
    else:
        api_base = judge_server_factory(fault_rate=1.0, fault_kinds=[kind]).api_base
    spec = JudgeSpec(model="openai/probe", api_base=api_base, api_key_env=TEST_KEY_ENV)
    transport = LiteLLMTransport(spec, timeout=5)
    rubric = make_rubric([http_judge(api_base)])
    request = CriterionGrader(rubric, seed=1).requests.request(
        make_item(), rubric.criteria[0], "probe", 0
    )
    with pytest.raises(JudgeFailure) as caught:
        await transport.complete(Call(request.messages, {"type": "json_object"}, request))
    failure = caught.value
    assert (failure.category, failure.hopeless, failure.retryable) == (
        category,
        hopeless,
        retryable,
    )
    if kind == "refused":
        assert failure.detail == f"connection refused to {api_base}"
    if kind == "unknown_host":
        assert failure.detail == f"unknown host to {api_base}"
    if kind == "rate_limit":
        assert failure.retry_after == 1.0


class Wrapped(Exception):
    status_code = 500


def test_chained_causes_decide_over_the_status() -> None:
    inner = ConnectionRefusedError(111, "Connect call failed")
    outer = Wrapped("Connection error.")
    outer.__cause__ = inner
    failure = litellm_failure(outer, judge_id="j", secret=None, api_base="http://h/v1")
    assert isinstance(failure, JudgeFailure)
    assert failure.describe() == "connection: connection refused to http://h/v1"
    dns = Wrapped("Connection error.")
    dns.__context__ = socket.gaierror(-2, "Name or service not known")
    failure = litellm_failure(dns, judge_id="j", secret=None)
    assert isinstance(failure, JudgeFailure)
    assert failure.describe() == "connection: unknown host to the provider"
    plain = litellm_failure(Wrapped("boom"), judge_id="j", secret=None)
    assert isinstance(plain, JudgeFailure) and not plain.hopeless and plain.category == "server"


def test_a_garbled_200_body_is_a_retryable_server_failure() -> None:
    """litellm's fast handler (which we switch on) raises APIError with status 200 for it."""

    class Garbled(Exception):
        status_code = 200

    failure = litellm_failure(Garbled("bad body"), judge_id="j", secret=None)
    assert isinstance(failure, JudgeFailure)
    assert (failure.category, failure.retryable, failure.hopeless) == ("server", True, False)


async def test_failures_that_do_not_blame_the_judge_never_trip_it() -> None:
    """A batch cancelled at the provider fails its votes on purpose: they are error votes, but
    the judge is not broken, so the failed-votes streak ignores them (and only them)."""
    from autorubric_cli.core.config import BreakerConfig
    from autorubric_cli.judges.policy.breaker import CircuitBreaker

    breaker = CircuitBreaker("j", BreakerConfig(failed_votes=2))
    cancelled = JudgeFailure(
        "batch", "batch b1 ended cancelled", retryable=False, blames_judge=False
    )
    for _ in range(5):
        await breaker.vote_failed(cancelled)  # not held: returns at once as an error vote
    assert breaker.tripped is None and breaker.failed_streak == 0
    breaker.vote_started()
    breaker.vote_started()  # a second vote still running keeps the first one held
    spent = JudgeFailure("server", "HTTP 500", retryable=True)
    with pytest.raises(JudgeUnavailable, match="2 votes in a row failed"):
        held = asyncio.ensure_future(breaker.vote_failed(spent))
        await asyncio.sleep(0)
        await breaker.vote_failed(spent)
    with pytest.raises(JudgeUnavailable):
        await held
