"""Live cascades with simulated judges: who is asked, what decides, how records look."""

from __future__ import annotations

from typing import Any

import pytest

from autorubric_cli.core.evaluate import ScoringRules, evaluate_votes
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.grading.grader import CriterionGrader
from tests.support import BINARY, MULTI_CHOICE, make_item, make_rubric

CRITERIA = [BINARY, {**BINARY, "name": "second"}, MULTI_CHOICE]
JUDGES = [
    {"model": "simulated/cheap", "id": "cheap", "samples": 3, "params": {"accuracy": 0.7}},
    {"model": "simulated/other", "id": "other", "params": {"accuracy": 0.7}},
    {"model": "simulated/strong", "id": "strong", "samples": 2, "params": {"accuracy": 0.95}},
]
CASCADE = {"first": ["cheap", "other"], "then": ["strong"], "escalate_below": 0.8}


async def grade(n: int, **grader: Any) -> tuple[list[ItemRecord], ScoringRules]:
    rubric = make_rubric(JUDGES, CRITERIA, **{"cascade": CASCADE, **grader})
    records = []
    async with CriterionGrader(rubric, seed=5) as engine:
        for i in range(n):
            item = make_item(f"item-{i}", f"answer {i}", index=i)
            records.append(await engine.grade(item))
    return records, ScoringRules.from_rubric(rubric)


@pytest.mark.parametrize("llm_calls", ["per_criterion", "per_item"])
async def test_escalated_criteria_are_decided_by_the_then_judges_alone(llm_calls: str) -> None:
    records, rules = await grade(30, llm_calls=llm_calls)
    escalated = kept = 0
    for record in records:
        for criterion, result in zip(rules.criteria, record.criteria, strict=True):
            first = [v for v in result.votes if v.stage == "first"]
            then = [v for v in result.votes if v.stage == "then"]
            assert sorted({v.judge for v in first}) == ["cheap", "other"]
            assert len(first) == 4  # every first judge, every sample
            decided_by = then if result.escalated else first
            assert {v.judge for v in then} == ({"strong"} if result.escalated else set())
            alone = evaluate_votes(
                [decided_by if c is criterion else [] for c in rules.criteria], rules, 0
            ).criteria[rules.criteria.index(criterion)]
            assert (alone.verdict, alone.option) == (result.verdict, result.option)
            escalated += bool(result.escalated)
            kept += result.escalated is False
    assert escalated > 0 and kept > 0  # the workload exercises both branches


async def test_the_then_stage_of_a_per_item_cascade_lists_only_escalated_criteria() -> None:
    records, _ = await grade(20, llm_calls="per_item")
    for record in records:
        then = [(c.name, v) for c in record.criteria for v in c.votes if v.stage == "then"]
        carriers = {v.billed_with or name for name, v in then}
        escalated = [c.name for c in record.criteria if c.escalated]
        # one call per `then` sample, carried by the first escalated criterion
        assert carriers <= set(escalated[:1])
        assert len(then) == 2 * len(escalated)


async def test_a_threshold_of_zero_never_escalates_a_clean_first_stage() -> None:
    records, _ = await grade(10, cascade={**CASCADE, "escalate_below": 0.0})
    assert all(c.escalated is False for r in records for c in r.criteria)
    assert all(v.judge != "strong" for r in records for c in r.criteria for v in c.votes)
