"""A call abandoned at its timeout: closed at the connection (the server sees the client leave
and stops generating), and its failure names the limit and the setting that gave it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.policy.retry import RetryPolicy
from tests.support import BINARY, http_judge, make_item, make_rubric
from tests.support.judge_server import JudgeServer

FAST = RetryPolicy(base_s=0.01, cap_s=0.05, retry_after_cap_s=1.0)


async def grade(server: JudgeServer, judge: dict, criteria: int = 1, **grader: object):  # type: ignore[no-untyped-def]
    names = [{**BINARY, "name": f"c{k}"} for k in range(criteria)]
    engine = CriterionGrader(make_rubric([judge], names, **grader), seed=1, retry=FAST)
    try:
        return await engine.grade(make_item())
    finally:
        await engine.aclose()


@pytest.mark.parametrize("transport", ["native", "litellm"])
async def test_a_timed_out_call_is_closed_and_its_limit_named(
    judge_server: JudgeServer, judge_api_key: str, transport: str
) -> None:
    judge_server.script("hang")  # hangs until the client closes the connection (or 30 s)
    judge = http_judge(judge_server.api_base, transport=transport)
    record = await grade(judge_server, judge, timeout=0.3, max_attempts=1)
    (vote,) = record.criteria[0].votes
    assert vote.error == "timeout: no reply within 0.3 s (grader.timeout)"
    (hung,) = judge_server.wait_abandoned(1)  # the server saw the client leave, mid-hang
    assert hung.answered_at is None


async def test_a_judge_timeout_is_named_as_the_judge_s(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    judge_server.script("hang")
    judge = http_judge(judge_server.api_base, id="slow", timeout=0.25)
    record = await grade(judge_server, judge, timeout=60, max_attempts=1)
    (vote,) = record.criteria[0].votes
    assert vote.error == "timeout: no reply within 0.25 s (timeout of judge 'slow')"


async def test_abandoned_calls_are_not_generated_by_a_queueing_server(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    """A one-slot server generating for 30 s: three calls time out, one mid-generation and two
    in the queue; the two queued ones are never generated (the issue of a server still busy
    with replies nobody waits for)."""
    server = judge_server_factory(slots=1, latency=30.0)
    judge = http_judge(server.api_base, max_concurrency=3)
    record = await grade(
        server, judge, criteria=3, timeout=0.3, max_attempts=1, adaptive_concurrency=False
    )
    assert all(
        v.error is not None and v.error.startswith("timeout:")
        for c in record.criteria
        for v in c.votes
    )
    abandoned = server.wait_abandoned(3)
    assert len(abandoned) == 3 and server.request_count == 3
    assert sum(r.generated for r in abandoned) == 1  # the one in the slot; the queued never
