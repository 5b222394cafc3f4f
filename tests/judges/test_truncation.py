"""Replies cut off at their token limit (judges/judge.py, judges/per_item/replies.py): a failure
kind of their own naming `max_tokens`, re-asked as such; per item, the complete entries of a
cut-off reply are kept and only the criteria it did not reach are asked again."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.per_item.replies import leading_entries
from autorubric_cli.judges.policy.retry import RetryPolicy
from tests.support import http_judge, make_item, make_rubric
from tests.support.experiment.criteria import CORRECT, style, tone
from tests.support.experiment.per_item import asked_names
from tests.support.judge_server import JudgeServer, default_answer
from tests.support.judge_server.faults import cut_off

FAST = RetryPolicy(base_s=0.001, cap_s=0.01)
CRITERIA = [CORRECT, style(), tone()]


async def grade(server: JudgeServer, criteria: list[dict[str, Any]], **grader: Any):  # type: ignore[no-untyped-def]
    judge = http_judge(server.api_base, max_tokens=50, transport="native")
    engine = CriterionGrader(make_rubric([judge], criteria, **grader), seed=3, retry=FAST)
    try:
        return await engine.grade(make_item())
    finally:
        await engine.aclose()


async def test_a_cut_off_reply_is_reasked_saying_it_was_cut_off(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    judge_server.script("truncated")
    record = await grade(judge_server, [CORRECT])
    (vote,) = record.criteria[0].votes
    assert vote.error is None and vote.attempts == 2 and vote.verdict is not None
    cut, again = judge_server.requests
    assert cut.fault == "truncated"
    last = again.messages[-1]
    assert last["role"] == "user" and len(again.messages) == len(cut.messages)  # not echoed
    assert "was incomplete (the reply was cut off at max_tokens (50))" in last["content"]


async def test_replies_cut_off_every_time_end_as_a_truncated_error_vote(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    server = judge_server_factory(fault_rate=1.0, fault_kinds=["truncated"])
    record = await grade(server, [CORRECT], max_attempts=2)
    (vote,) = record.criteria[0].votes
    assert server.request_count == 2 and vote.attempts == 2
    assert vote.error == "truncated: the reply was cut off at max_tokens (50)"
    assert record.status == "error"


async def test_a_cut_off_per_item_reply_keeps_its_complete_entries(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    judge_server.script("truncated")
    record = await grade(judge_server, CRITERIA, llm_calls="per_item")
    first, follow_up = judge_server.requests
    whole = json.loads(default_answer(first.body))["criteria"]
    kept = leading_entries(cut_off(default_answer(first.body)))
    assert kept and len(kept) < len(CRITERIA)  # the cut left some entries whole, not all
    assert kept == whole[: len(kept)]
    names = [c["name"] for c in CRITERIA]
    assert asked_names(first) == names
    assert asked_names(follow_up) == names[len(kept) :]  # only what the cut did not reach
    for criterion, name in zip(record.criteria, names, strict=True):
        (vote,) = criterion.votes
        assert vote.error is None
        assert vote.attempts == (1 if name in names[: len(kept)] else 2)
    (kept_vote,) = record.criteria[0].votes
    assert kept_vote.reason == kept[0]["explanation"]


async def test_per_item_criteria_the_cut_never_reaches_name_max_tokens(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    server = judge_server_factory(fault_rate=1.0, fault_kinds=["truncated"])
    record = await grade(server, CRITERIA, llm_calls="per_item", max_attempts=2)
    errors = [v.error for c in record.criteria for v in c.votes if v.error is not None]
    assert errors and record.status == "error"
    assert all(e.startswith("truncated: the reply was cut off at max_tokens (50)") for e in errors)
