"""Response-set elicitation over the real litellm path against the loopback server.

Every bad set (empty, repeated, out of range) is a `parse` failure that is re-asked and counts
as an attempt; sets are mapped back through the shuffle to original option indices.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

from autorubric_cli.core.records import CriterionVerdict, ItemRecord, Vote
from autorubric_cli.core.shuffle import shuffle_order
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.policy.retry import RetryPolicy
from tests.support import BINARY, MULTI_CHOICE, http_judge, make_item, make_rubric
from tests.support.judge_server import JudgeServer

FAST = RetryPolicy(base_s=0.001, cap_s=0.005)
SEED = 7
JUDGE_ID = "openai/loopback"


def criterion(base: dict[str, Any], elicitation: str) -> dict[str, Any]:
    return {**base, "elicitation": elicitation}


def scripted(*replies: dict[str, Any]) -> Callable[[dict[str, Any]], str]:
    """Answers the replies in arrival order; the last one is repeated."""
    queue = [json.dumps(r) for r in replies]
    lock = threading.Lock()

    def answer(body: dict[str, Any]) -> str:
        with lock:
            return queue.pop(0) if len(queue) > 1 else queue[0]

    return answer


async def grade(
    server: JudgeServer, criteria: list[dict[str, Any]], samples: int = 1, **grader: Any
) -> ItemRecord:
    judge = http_judge(server.api_base, samples=samples)
    engine = CriterionGrader(make_rubric([judge], criteria, **grader), seed=SEED, retry=FAST)
    try:
        return await engine.grade(make_item())
    finally:
        await engine.aclose()


def only_vote(record: ItemRecord) -> Vote:
    (criterion_record,) = record.criteria
    (vote,) = criterion_record.votes
    return vote


def order(sample: int = 0) -> list[int]:
    return shuffle_order(SEED, "item-1", JUDGE_ID, "quality", sample, 4)


async def test_bad_sets_are_reasked_until_a_good_one(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    server = judge_server_factory(
        answer=scripted(
            {"explanation": "none", "selected_options": []},
            {"explanation": "twice", "selected_options": [2, 2]},
            {"explanation": "far", "selected_options": [1, 9]},
            {"explanation": "good", "selected_options": [4, 1]},
        )
    )
    vote = only_vote(await grade(server, [criterion(MULTI_CHOICE, "response_set")]))
    assert server.request_count == 4
    assert vote.error is None and vote.attempts == 4
    assert vote.option_set == sorted({order()[3], order()[0]})
    assert vote.option_index is None and vote.verdict is None and vote.reason == "good"
    problems = [r.messages[-1]["content"] for r in server.requests[1:]]
    assert "selected_options is empty" in problems[0]
    assert "selected_options lists 2 more than once" in problems[1]
    assert "selected_options has 9, outside 1..4" in problems[2]
    for request in server.requests:
        fmt = request.body["response_format"]["json_schema"]  # a local server: its own schema
        assert fmt["name"] == "multi_choice_response_set"
        assert "Fill selected_options; set the other" in request.messages[1]["content"]


async def test_sets_that_stay_bad_end_as_an_error_vote(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    server = judge_server_factory(
        answer=scripted({"explanation": "x", "selected_option": 1, "selected_options": [3, 3]})
    )
    record = await grade(server, [criterion(MULTI_CHOICE, "both")], max_attempts=3)
    vote = only_vote(record)
    assert server.request_count == 3 and vote.attempts == 3
    assert vote.error == "parse: selected_options lists 3 more than once"
    assert vote.option_index is None and vote.option_set is None
    assert record.status == "error" and record.score is None


async def test_out_of_range_fault_on_a_set_is_reasked(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    judge_server.script("out_of_range")
    vote = only_vote(await grade(judge_server, [criterion(MULTI_CHOICE, "both")]))
    assert judge_server.request_count == 2 and vote.attempts == 2
    assert (
        "selected_options has 99, outside 1..4" in judge_server.requests[1].messages[3]["content"]
    )
    assert vote.error is None and vote.option_index is not None
    assert vote.option_set and vote.option_index in vote.option_set


async def test_sets_are_mapped_back_through_the_shuffle(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    server = judge_server_factory(
        answer=scripted({"explanation": "first and third", "selected_options": [3, 1]})
    )
    record = await grade(server, [criterion(MULTI_CHOICE, "response_set")], samples=6)
    votes = record.criteria[0].votes
    # samples shown the same order have the same prompt: they are asked in one request
    assert server.request_count == len({tuple(order(s)) for s in range(6)}) < 6
    assert any(order(v.sample) != [0, 1, 2, 3] for v in votes)
    for vote in votes:
        assert vote.shuffle_order == order(vote.sample)
        assert vote.option_set == sorted({order(vote.sample)[0], order(vote.sample)[2]})
        assert vote.option_index is None
    assert any(vote.option_set != [0, 2] for vote in votes)


async def test_both_keeps_the_forced_choice_and_the_set(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    reply = {"explanation": "second", "selected_option": 2, "selected_options": [4, 2]}
    server = judge_server_factory(answer=scripted(reply))
    record = await grade(server, [criterion(MULTI_CHOICE, "both")], samples=4)
    for vote in record.criteria[0].votes:
        shown = order(vote.sample)
        assert vote.option_index == shown[1]
        assert vote.option_set == sorted({shown[3], shown[1]})
    assert server.requests[0].body["response_format"]["json_schema"]["name"] == (
        "multi_choice_verdict_and_set"
    )
    assert "Fill selected_option and selected_options;" in server.requests[0].text()


@pytest.mark.parametrize(
    ("elicitation", "reply", "verdict", "option_set"),
    [
        ("response_set", {"selected_options": [1]}, None, [1]),
        ("response_set", {"selected_options": [2]}, None, [0]),
        ("response_set", {"selected_options": [2, 1]}, None, [0, 1]),
        ("both", {"criterion_status": "UNMET", "selected_options": [2]}, "UNMET", [0]),
        ("both", {"criterion_status": "MET", "selected_options": [1, 2]}, "MET", [0, 1]),
    ],
)
async def test_binary_sets_use_the_report_encoding(
    judge_server_factory: Callable[..., JudgeServer],
    judge_api_key: str,
    elicitation: str,
    reply: dict[str, Any],
    verdict: str | None,
    option_set: list[int],
) -> None:
    server = judge_server_factory(answer=scripted({"explanation": "e", **reply}))
    vote = only_vote(await grade(server, [criterion(BINARY, elicitation)]))
    assert server.request_count == 1
    assert vote.verdict == (None if verdict is None else CriterionVerdict(verdict))
    assert vote.option_set == option_set
    assert vote.shuffle_order is None
    assert "by number: 1. MET, 2. UNMET." in server.requests[0].text()


async def test_default_server_answers_fit_every_schema(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    criteria = [
        criterion(BINARY, "both"),
        criterion({**BINARY, "name": "set_only"}, "response_set"),
        criterion(MULTI_CHOICE, "both"),
        criterion({**MULTI_CHOICE, "name": "quality_set"}, "response_set"),
    ]
    judge = http_judge(judge_server.api_base, samples=3, sample_request="separate")
    engine = CriterionGrader(make_rubric([judge], criteria), seed=SEED, retry=FAST)
    record = await engine.grade(make_item())
    await engine.aclose()
    assert judge_server.request_count == 12 and record.status == "ok"
    for result in record.criteria:
        for vote in result.votes:
            assert vote.attempts == 1 and vote.option_set
            if result.name == "accuracy" and vote.verdict != CriterionVerdict.CANNOT_ASSESS:
                assert (1 if vote.verdict == CriterionVerdict.MET else 0) in vote.option_set
            if result.name == "quality":
                assert vote.option_index in vote.option_set
            if result.name in ("set_only", "quality_set"):
                assert vote.verdict is None and vote.option_index is None
