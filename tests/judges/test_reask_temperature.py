"""Re-asks that can change (judges/policy/providers.py `attempt_temperature`, judges/judge.py):
each re-ask of an unusable reply goes a `reask_temperature_step` hotter, up to 1.0, where the
provider takes a temperature; the vote records the temperature its kept answer came at, and the
call cache keys a re-ask on what it sent, so a rerun never pays twice for it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.cache import CallCache, cache_path
from autorubric_cli.judges.policy.providers import attempt_temperature
from autorubric_cli.judges.policy.retry import RetryPolicy
from tests.support import http_judge, make_item, make_rubric
from tests.support.experiment.criteria import CORRECT
from tests.support.judge_server import JudgeServer

FAST = RetryPolicy(base_s=0.001, cap_s=0.01)


@pytest.mark.parametrize(
    ("judge", "temperatures"),
    [
        ({}, [0.0, 0.3, 0.6, 0.9, 1.0, 1.0]),
        ({"temperature": 0.8}, [0.8, 1.0, 1.0]),
        ({"temperature": 1.4}, [1.4, 1.4]),  # never lowered
        ({"reask_temperature_step": 0.1}, [0.0, 0.1, 0.2, 0.3]),
        ({"reask_temperature_step": 0}, [0.0, 0.0]),
        ({"temperature": None}, [None, None]),  # the provider's default: nothing to raise
        ({"model": "anthropic/claude-sonnet-4-5", "thinking": 2048}, [None, None]),
        ({"model": "openai/o4-mini", "temperature": 1}, [1, 1]),  # only 1 accepted
    ],
)
def test_each_reask_is_a_step_hotter_where_the_provider_takes_it(
    judge: dict[str, Any], temperatures: list[float | None]
) -> None:
    spec = JudgeSpec.model_validate({"model": "openai/m", **judge})
    assert [attempt_temperature(spec, n) for n in range(len(temperatures))] == temperatures


async def grade(server: JudgeServer, cache: CallCache | None = None):  # type: ignore[no-untyped-def]
    judge = http_judge(server.api_base, transport="native")
    rubric = make_rubric([judge], [CORRECT], max_attempts=4)
    engine = CriterionGrader(rubric, seed=3, retry=FAST, cache=cache)
    try:
        return await engine.grade(make_item())
    finally:
        await engine.aclose()


async def test_the_vote_records_the_temperature_its_answer_came_at(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str, tmp_path: Path
) -> None:
    server = judge_server_factory(script=["malformed", "malformed"])
    record = await grade(server, CallCache(cache_path(tmp_path)))
    assert [r.body["temperature"] for r in server.requests] == [0.0, 0.3, 0.6]
    (vote,) = record.criteria[0].votes
    assert vote.error is None and vote.attempts == 3 and vote.temperature == 0.6
    assert '"temperature":0.6' in vote.model_dump_json()
    server.reset()  # a clean first answer: the judge's own temperature, not recorded
    clean = await grade(server)
    assert "temperature" not in clean.criteria[0].votes[0].model_dump_json(exclude_none=False)


async def test_a_rerun_is_served_the_reasks_answer_from_the_cache(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str, tmp_path: Path
) -> None:
    """Only the parsed answer is stored, under the key of the re-ask that got it (its messages
    and its raised temperature): the same faults again cost the two bad calls, never the
    third."""
    cache = tmp_path / "cache"
    server = judge_server_factory(script=["malformed", "malformed"])
    first = await grade(server, CallCache(cache_path(cache)))
    server.reset()
    server.script("malformed", "malformed")
    again = await grade(server, CallCache(cache_path(cache)))
    assert server.request_count == 2
    (vote,) = again.criteria[0].votes
    assert vote.attempts == 3 and vote.temperature == 0.6
    assert vote.verdict == first.criteria[0].votes[0].verdict
