"""`compare` with per-item criteria (docs/guides/compare.md, "Per-item rubrics"): item criteria
pair by item id, name and definition; items whose rubrics differ are named and their changed
criteria left out; the pooled binary ones are tested item by item (Wilcoxon, scipy)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scipy import stats

from tests.support.cli import cli
from tests.support.item_experiment import Graded, write_item_experiment

RUBRIC = {
    "criteria": [{"name": "kind", "requirement": "Is kind", "weight": 2}],
    "grader": {"judges": [{"model": "openai/m", "id": "j"}]},
}
SCALE = {
    "requirement": "How clear?",
    "options": [{"label": "Poor", "value": 0.0}, {"label": "Good", "value": 1.0}],
}


def crit(requirement: str, weight: int = 5) -> dict[str, Any]:
    return {"requirement": requirement, "weight": weight}


def items(new: bool) -> list[Graded]:
    """Four items; NEW meets more of them. q3's i2 is reworded in NEW and NEW adds i3 to it."""
    met, unmet = ["MET"], ["UNMET"]
    q3 = [crit("States the dose"), crit("Warns about alcohol" if not new else "Warns of alcohol")]
    rows = [
        Graded("q1", [crit("a"), crit("b"), SCALE], {"i1": unmet, "i2": unmet, "i3": [0]}),
        Graded("q2", [crit("c"), crit("d", -5)], {"i1": unmet, "i2": met}),
        Graded("q3", q3 + ([crit("Gives a number")] if new else []), {"i1": met, "i2": unmet}),
        Graded("q4", [crit("e")], {"i1": met}),
    ]
    if new:
        rows[0].answers.update(i1=met, i2=met, i3=[1])
        rows[1].answers.update(i1=met, i2=unmet)
        rows[2].answers.update(i2=met, i3=met)
        rows[3].answers.update(i1=unmet)
    for row in rows:
        row.answers["kind"] = met
    return rows


def test_item_criteria_pair_by_name_and_definition(tmp_path: Path) -> None:
    base = write_item_experiment(tmp_path / "base", RUBRIC, items(False), name="base")
    new = write_item_experiment(tmp_path / "new", RUBRIC, items(True), name="new")
    result = cli("compare", base, new, "--format", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert [c["name"] for c in report["criteria"]] == ["kind"]
    own = report["item_criteria"]
    # q1 i1, i2; q2 i1, i2; q3 i1; q4 i1 (q1's i3 is multi-choice; q3's i2 changed, i3 new)
    assert (own["items"], own["paired_criteria"], own["left_out"], own["differing_items"]) == (
        4,
        6,
        3,
        1,
    )
    pooled = own["pooled"]
    assert pooled["name"] == "item criteria" and pooled["test"] == "wilcoxon_items"
    assert (pooled["base"], pooled["new"]) == (pytest.approx(3 / 6), pytest.approx(4 / 6))
    assert pooled["transitions"] == {"MET->UNMET": 2, "UNMET->MET": 3}
    # each item's change of MET rate: q1 +1, q2 0 (+1 -1), q3 0, q4 -1
    expected = stats.wilcoxon([1.0, 0.0, 0.0, -1.0]).pvalue
    assert pooled["p_value"] == pytest.approx(expected)
    warning = next(w for w in report["warnings"] if "different rubrics" in w)
    assert warning.startswith("1 item has different rubrics in BASE and NEW: q3;")
    assert "the other 3 (changed, or on one side only) are left out" in warning
    table = cli("compare", base, new).stdout
    assert "item criteria" in table and "6 binary (item, criterion) pairs" in table
    markdown = cli("compare", base, new, "--format", "markdown").stdout
    assert "| item criteria | binary | 6 |" in markdown
