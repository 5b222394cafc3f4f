"""The report's cascade section, folded from hand-made records."""

from __future__ import annotations

import json

import pytest

from autorubric_cli.core.config import CascadeConfig
from autorubric_cli.core.json_model import to_json
from autorubric_cli.core.records import CriterionRecord, ItemRecord, Vote
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.report.cascade_section import cascade_section
from autorubric_cli.report.render_cascade import cascade_summary, escalation_rows

CRITERIA = [Criterion(name="a", requirement="x"), Criterion(name="b", requirement="y")]
CASCADE = CascadeConfig(first=["cheap"], then=["strong"], escalate_below=0.8)


def vote(judge: str, stage: str, cost: float, **more: object) -> Vote:
    return Vote(judge=judge, stage=stage, cost=cost, **more)  # type: ignore[arg-type]


def item(index: int, a: list[Vote], b: list[Vote], escalated: tuple[bool, bool]) -> ItemRecord:
    criteria = [
        CriterionRecord(name=name, votes=votes, escalated=flag)
        for name, votes, flag in zip("ab", (a, b), escalated, strict=True)
    ]
    return ItemRecord(id=f"i{index}", index=index, status="ok", criteria=criteria)


def test_stages_escalations_and_the_all_then_estimate() -> None:
    records = [
        item(
            0,
            [vote("cheap", "first", 0.01, attempts=3), vote("strong", "then", 0.10)],
            [vote("cheap", "first", 0.01)],
            (True, False),
        ),
        item(
            1,
            [vote("cheap", "first", 0.01, cached=True)],
            [
                vote("cheap", "first", 0.01, error="timeout", attempts=2),
                vote("strong", "then", 0.30, cached=True),
            ],
            (False, True),
        ),
    ]
    section = cascade_section(records, CRITERIA, CASCADE)
    assert (section.graded, section.escalated, section.escalation_rate) == (4, 2, 0.5)
    assert [(c.name, c.escalated, c.escalation_rate) for c in section.criteria] == [
        ("a", 1, 0.5),
        ("b", 1, 0.5),
    ]
    first, then = section.first, section.then
    assert (first.votes, first.calls, first.cached, first.errors) == (4, 6, 1, 1)
    assert (then.votes, then.calls, then.cached) == (2, 1, 1)
    assert first.cost == pytest.approx(0.03) and first.cost_saved == pytest.approx(0.01)
    assert then.cost == pytest.approx(0.10) and then.cost_saved == pytest.approx(0.30)
    assert section.cost == pytest.approx(0.13)
    # the then stage's mean cost per escalated pair (0.4 / 2) times the 4 graded pairs
    assert section.all_then_cost_estimate == pytest.approx(0.8)
    assert section.cost_ratio == pytest.approx((0.04 + 0.40) / 0.8)
    # per criterion, cached votes at their original cost: a 0.02 + 0.10, b 0.02 + 0.30; each
    # all-then estimate is its own escalations' mean then cost times its 2 graded pairs
    a, b = section.criteria
    assert (a.escalate_below, b.escalate_below) == (0.8, 0.8)
    assert (a.cost, a.all_then_cost_estimate, a.saved) == pytest.approx((0.12, 0.20, 0.08))
    assert (b.cost, b.all_then_cost_estimate, b.saved) == pytest.approx((0.32, 0.60, 0.28))


def test_a_threshold_map_is_shown_per_criterion() -> None:
    records = [
        item(0, [vote("cheap", "first", 0.01)], [vote("cheap", "first", 0.01)], (False, False)),
        item(
            1,
            [vote("cheap", "first", 0.01), vote("strong", "then", 0.2)],
            [vote("cheap", "first", 0.01)],
            (True, False),
        ),
    ]
    cascade = CascadeConfig(first=["cheap"], then=["strong"], escalate_below={"a": 0.5, "*": 0.9})
    section = cascade_section(records, CRITERIA, cascade)
    assert section.escalate_below == {"a": 0.5, "*": 0.9}
    a, b = section.criteria
    assert (a.escalate_below, b.escalate_below) == (0.5, 0.9)
    assert (a.cost, a.all_then_cost_estimate, a.saved) == pytest.approx((0.22, 0.4, 0.18))
    # b never escalated: its estimate takes the run's then cost per escalated pair
    assert (b.cost, b.all_then_cost_estimate, b.saved) == pytest.approx((0.02, 0.4, 0.38))
    summary = cascade_summary(section)
    assert "below each criterion's threshold" in summary
    rows = escalation_rows(section)
    assert rows[0][:2] == ["a", "0.5"] and rows[1][:2] == ["b", "0.9"]
    assert rows[0][-1] == "$0.1800" and rows[1][-1] == "$0.3800"
    data = json.loads(to_json(section))
    assert data["escalate_below"] == {"a": 0.5, "*": 0.9}
    assert [c["escalate_below"] for c in data["criteria"]] == [0.5, 0.9]
    assert [c["saved"] for c in data["criteria"]] == pytest.approx([0.18, 0.38])


def test_a_per_item_call_counts_once_and_old_records_are_left_out() -> None:
    shared = [
        vote("cheap", "first", 0.02, attempts=2),
        vote("cheap", "first", 0.0, billed_with="a"),
    ]
    records = [
        item(0, shared[:1], shared[1:], (False, False)),
        ItemRecord(id="old", index=1, status="ok", criteria=[CriterionRecord(name="a")]),
    ]
    section = cascade_section(records, CRITERIA, CASCADE)
    assert (section.first.votes, section.first.calls) == (2, 2)
    assert section.graded == 2 and section.escalation_rate == 0.0
    assert section.all_then_cost_estimate is None and section.cost_ratio is None
