"""The real litellm path against the loopback server: retries, faults, limits, usage, secrets."""

from __future__ import annotations

import json
import logging
import time
import traceback
from collections.abc import Callable
from typing import Any

import pytest

from autorubric_cli.core.records import CriterionVerdict, ItemRecord
from autorubric_cli.errors import InputError
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.policy.failures import JudgeAuthError
from autorubric_cli.judges.policy.retry import RetryPolicy
from autorubric_cli.judges.transports.litellm import load_litellm
from autorubric_cli.judges.transports.native import NativeTransport
from tests.support import MULTI_CHOICE, TEST_KEY_ENV, http_judge, make_item, make_rubric
from tests.support.judge_server import Fault, JudgeServer

FAST = RetryPolicy(base_s=0.01, cap_s=0.05, retry_after_cap_s=5.0)


async def grade_once(
    server: JudgeServer, judge: dict[str, Any] | None = None, **grader: Any
) -> tuple[ItemRecord, CriterionGrader]:
    criteria = grader.pop("criteria", None)
    rubric = make_rubric([judge or http_judge(server.api_base)], criteria, **grader)
    engine = CriterionGrader(rubric, seed=7, retry=FAST)
    try:
        return await engine.grade(make_item()), engine
    finally:
        await engine.aclose()


def only_vote(record: ItemRecord):  # type: ignore[no-untyped-def]
    (criterion,) = record.criteria
    (vote,) = criterion.votes
    return vote


async def test_a_clean_call_gives_a_vote_with_usage(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    record, engine = await grade_once(judge_server)
    vote = only_vote(record)
    assert judge_server.request_count == 1
    assert vote.error is None and vote.attempts == 1
    assert vote.verdict in set(CriterionVerdict)
    assert vote.usage["prompt_tokens"] > 50 and vote.usage["completion_tokens"] > 0
    assert record.usage == vote.usage
    assert record.status == "ok" and record.simulated is False
    assert engine.stats.calls_started == 1 and engine.stats.in_flight == 0
    assert engine.stats.prompt_tokens == vote.usage["prompt_tokens"]
    body = judge_server.requests[0].body
    assert body["model"] == "loopback"
    assert body["response_format"]["json_schema"]["name"] == "binary_verdict"
    assert "Fill criterion_status;" in body["messages"][1]["content"]
    assert body["temperature"] == 0.0


async def test_rate_limit_waits_for_retry_after_then_succeeds(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    judge_server.script(Fault("rate_limit", retry_after=1))
    started = time.monotonic()
    record, engine = await grade_once(judge_server)
    elapsed = time.monotonic() - started
    vote = only_vote(record)
    assert judge_server.request_count == 2
    assert vote.error is None and vote.attempts == 2
    gap = judge_server.requests[1].received_at - judge_server.requests[0].received_at
    assert gap >= 1.0 and elapsed >= 1.0
    assert engine.stats.retries == 1


async def test_server_error_then_success(judge_server: JudgeServer, judge_api_key: str) -> None:
    judge_server.script("server_error")
    record, _ = await grade_once(judge_server)
    assert judge_server.request_count == 2
    assert only_vote(record).error is None
    assert record.status == "ok"


async def test_timeout_then_success(judge_server: JudgeServer, judge_api_key: str) -> None:
    judge_server.script("hang")  # hangs until the client leaves (or hang_s: 30 s)
    started = time.monotonic()
    record, _ = await grade_once(judge_server, timeout=0.4)
    vote = only_vote(record)
    assert judge_server.request_count == 2
    assert vote.error is None and vote.attempts == 2
    assert time.monotonic() - started >= 0.4
    # The client gave up at its timeout and closed the connection: the server saw the hung
    # request abandoned (a hang ends only then, or after 30 s), not answered.
    (hung,) = judge_server.wait_abandoned(1)
    assert hung is judge_server.requests[0] and hung.answered_at is None


async def test_malformed_content_is_reasked(judge_server: JudgeServer, judge_api_key: str) -> None:
    judge_server.script("malformed")
    record, _ = await grade_once(judge_server)
    vote = only_vote(record)
    assert judge_server.request_count == 2 and vote.attempts == 2
    assert vote.error is None and vote.verdict is not None
    first, second = judge_server.requests
    assert len(first.messages) == 2
    assert second.messages[:2] == first.messages
    assert second.messages[2] == {"role": "assistant", "content": "this is not json {"}
    assert "could not be used" in second.messages[3]["content"]
    assert vote.usage["prompt_tokens"] > 2 * first_prompt_tokens(first.messages) - 1


def first_prompt_tokens(messages: list[dict[str, Any]]) -> int:
    return sum(len(str(m["content"]).split()) for m in messages)


async def test_out_of_range_option_is_reasked(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    judge_server.script("out_of_range")
    record, _ = await grade_once(judge_server, criteria=[MULTI_CHOICE])
    vote = only_vote(record)
    assert judge_server.request_count == 2
    assert vote.error is None and vote.option_index is not None
    assert "outside 1..4" in judge_server.requests[1].messages[3]["content"]


async def test_permanent_server_error_is_an_error_vote_after_max_attempts(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    server = judge_server_factory(fault_rate=1.0, fault_kinds=["server_error"])
    record, engine = await grade_once(server, max_attempts=3)
    vote = only_vote(record)
    assert server.request_count == 3
    assert vote.attempts == 3
    assert vote.verdict is None and vote.option_index is None
    assert vote.error is not None and vote.error.startswith("server: HTTP 500")
    assert record.status == "error" and record.error is not None
    assert record.criteria[0].verdict == CriterionVerdict.CANNOT_ASSESS
    assert record.score is None
    assert engine.stats.error_votes == 1 and engine.stats.retries == 2


async def test_permanent_rate_limit_is_a_rate_limit_error_vote(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    server = judge_server_factory(fault_rate=1.0, fault_kinds=["rate_limit"], retry_after=0)
    record, _ = await grade_once(server, max_attempts=2)
    assert server.request_count == 2
    assert (only_vote(record).error or "").startswith("rate_limit: HTTP 429")


async def test_bad_request_is_not_retried(judge_server: JudgeServer, judge_api_key: str) -> None:
    judge_server.script("bad_request")
    record, _ = await grade_once(judge_server)
    assert judge_server.request_count == 1
    assert (only_vote(record).error or "").startswith("request: HTTP 400")


async def test_unauthorized_stops_without_retry(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    judge_server.script("unauthorized")
    with pytest.raises(JudgeAuthError) as caught:
        await grade_once(judge_server, judge=http_judge(judge_server.api_base, id="gpt-judge"))
    assert judge_server.request_count == 1
    message = str(caught.value)
    assert "'gpt-judge'" in message and "401" in message and TEST_KEY_ENV in message
    assert judge_api_key not in "".join(traceback.format_exception(caught.value))


async def test_key_value_never_appears_in_votes_logs_or_errors(
    judge_server_factory: Callable[..., JudgeServer],
    judge_api_key: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    judge_server = judge_server_factory(echo_key=True, retry_after=0)
    judge_server.script("server_error", "malformed", "rate_limit", "bad_request", "unauthorized")
    record, _ = await grade_once(judge_server, max_attempts=5)
    error = only_vote(record).error or ""
    assert error.startswith("request: HTTP 400") and "(key ***)" in error
    try:
        await grade_once(judge_server)
    except JudgeAuthError as exc:
        auth_text = "".join(traceback.format_exception(exc))
    else:
        raise AssertionError("the 401 must raise JudgeAuthError")
    assert judge_server.requests[-1].fault == "unauthorized"
    assert judge_server.requests[0].body.get("api_key") is None
    assert judge_api_key not in record.model_dump_json()
    assert judge_api_key not in auth_text
    assert judge_api_key not in caplog.text
    assert any("retrying" in r.getMessage() for r in caplog.records)


async def test_missing_key_variable_is_an_input_error_before_any_call(
    judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(TEST_KEY_ENV, raising=False)
    rubric = make_rubric([http_judge(judge_server.api_base, id="gpt")])
    with pytest.raises(InputError) as caught:
        CriterionGrader(rubric, seed=1)
    assert "'gpt'" in str(caught.value) and TEST_KEY_ENV in str(caught.value)
    assert judge_server.request_count == 0


async def test_unknown_model_has_no_cost_and_known_model_is_priced(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    record, engine = await grade_once(judge_server)
    assert only_vote(record).cost is None and record.cost is None
    assert engine.stats.cost is None  # unpriced: n/a, not $0
    priced, priced_engine = await grade_once(
        judge_server, judge=http_judge(judge_server.api_base, "gpt-4o-mini")
    )
    cost = only_vote(priced).cost
    assert cost is not None and cost > 0
    assert priced.cost == pytest.approx(cost)
    assert priced_engine.stats.cost == pytest.approx(cost)


async def test_multi_choice_answer_is_mapped_back_through_the_shuffle(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    answer = json.dumps({"explanation": "second shown", "selected_option": 2})
    server = judge_server_factory(answer=lambda body: answer)
    rubric = make_rubric([http_judge(server.api_base, samples=6)], [MULTI_CHOICE])
    engine = CriterionGrader(rubric, seed=3, retry=FAST)
    record = await engine.grade(make_item())
    await engine.aclose()
    votes = record.criteria[0].votes
    assert [v.sample for v in votes] == list(range(6))
    assert len({tuple(v.shuffle_order or []) for v in votes}) > 1
    for vote in votes:
        assert vote.shuffle_order is not None
        assert vote.option_index == vote.shuffle_order[1]
        assert vote.reason == "second shown"


async def test_reasoning_effort_is_sent_and_trace_is_kept(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    server = judge_server_factory(reasoning="first I weighed the figures")
    record, _ = await grade_once(server, judge=http_judge(server.api_base, thinking="low"))
    assert server.requests[0].body["reasoning_effort"] == "low"
    assert only_vote(record).thinking == "first I weighed the figures"


async def test_judge_concurrency_never_exceeds_its_cap(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    server = judge_server_factory(latency=0.05)
    judge = http_judge(server.api_base, samples=24, max_concurrency=4, sample_request="separate")
    rubric = make_rubric([judge], [MULTI_CHOICE])
    engine = CriterionGrader(rubric, seed=1, retry=FAST)
    await engine.grade(make_item())
    await engine.aclose()
    assert server.request_count == 24
    assert server.max_in_flight == 4


async def test_global_concurrency_caps_all_judges(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    server = judge_server_factory(latency=0.05)
    judges = [
        http_judge(server.api_base, name, samples=8, max_concurrency=8, sample_request="separate")
        for name in ("a", "b")
    ]
    rubric = make_rubric(judges, [MULTI_CHOICE], concurrency=3)
    engine = CriterionGrader(rubric, seed=1, retry=FAST)
    await engine.grade(make_item())
    await engine.aclose()
    assert server.request_count == 16
    assert server.max_in_flight == 3


async def test_rpm_limit_spaces_request_starts(
    judge_server: JudgeServer, judge_api_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Starts are taken where the client starts a request (litellm.acompletion), not where the
    # server happens to receive it: a loaded machine can delay one request in transit and
    # bunch arrivals, while the spacing the limiter enforces is between starts.
    litellm = load_litellm()
    starts: list[float] = []
    real = litellm.acompletion

    async def timed(**kwargs: Any) -> Any:
        starts.append(time.monotonic())
        return await real(**kwargs)

    monkeypatch.setattr(litellm, "acompletion", timed)
    real_post = NativeTransport._post  # `auto` makes this judge native (docs/guides/transports.md)

    async def timed_post(self: NativeTransport, data: bytes, headers: Any) -> Any:
        starts.append(time.monotonic())
        return await real_post(self, data, headers)

    monkeypatch.setattr(NativeTransport, "_post", timed_post)
    judge = http_judge(judge_server.api_base, samples=4, rpm=600)
    rubric = make_rubric([judge], [MULTI_CHOICE])
    engine = CriterionGrader(rubric, seed=1, retry=FAST)
    await engine.grade(make_item())
    await engine.aclose()
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert len(starts) == 4 and judge_server.request_count == 4
    assert min(gaps) >= 0.09
