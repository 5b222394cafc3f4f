"""Tags and item criteria in the report (docs/reference/report-json.md, "Tags and item criteria"),
against hand-computed HealthBench figures (healthbench_cases.py) in both clip modes, with the
bootstrap intervals recomputed independently; every output format; gate paths on tags."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from healthbench_cases import (
    ACC,
    CLUSTER,
    COMM,
    COMP,
    CRITERIA_TAGS,
    EMERGENCY,
    HEDGING,
    ITEM_SCORES,
    ITEM_TAGS,
    healthbench_experiment,
)

from tests.support.cli import cli
from tests.support.item_experiment import Graded, write_item_experiment

SEED = 11  # the rubric's


def clipped(values: list[float], clip: str) -> float:
    mean = float(np.mean(values))
    return min(max(mean, 0.0), 1.0) if clip == "mean" else mean


def bootstrap(values: list[float], clip: str) -> list[float] | None:
    """The score's interval, written out: 1,000 resamples of the items (drawn by index in one
    block, seeded by the run's seed), each mean clamped under `clip: mean`, 2.5/97.5 %."""
    if len(values) < 2:
        return None
    data = np.asarray(values)
    rng = np.random.default_rng(SEED)
    means = data[rng.integers(0, len(data), size=(1000, len(data)))].mean(axis=1)
    if clip == "mean":
        means = np.clip(means, 0.0, 1.0)
    return [float(v) for v in np.percentile(means, [2.5, 97.5])]


def report_json(directory: Path, *flags: str) -> dict[str, Any]:
    result = cli("report", directory, "--format", "json", *flags)
    assert result.exit_code in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


@pytest.mark.parametrize("clip", ["item", "mean"])
def test_healthbench_figures_by_hand_in_both_clip_modes(tmp_path: Path, clip: str) -> None:
    report = report_json(healthbench_experiment(tmp_path / "exp", clip))
    scores = ITEM_SCORES[clip]
    score = report["score"]
    assert score["mean"] == pytest.approx(clipped(scores, clip))
    assert score["ci95"] == pytest.approx(bootstrap(scores, clip))
    # the other figures describe the item scores as recorded: unclamped under clip: mean
    assert score["min"] == pytest.approx(min(scores)) and score["max"] == pytest.approx(0.6)
    assert score["median"] == pytest.approx(float(np.median(scores)))
    assert score.get("clip") == ("mean" if clip == "mean" else None)
    assert report["criteria"] == []  # the rubric file shares none
    assert report["item_criteria"] == {
        "count": 8,
        "items": 3,
        "met_rate": 6 / 8,
        "cannot_assess_rate": 0.0,
    }
    criteria_tags = report["tags"]["criteria"]
    assert list(criteria_tags) == sorted([ACC, COMM, COMP, CLUSTER])
    for tag, (values, pairs) in CRITERIA_TAGS[clip].items():
        entry = criteria_tags[tag]
        assert entry["score"] == pytest.approx(clipped(values, clip)), tag
        assert entry["ci95"] == pytest.approx(bootstrap(values, clip)), tag
        assert (entry["n_items"], entry["n_criteria"]) == (len(values), pairs), tag
    assert criteria_tags[COMP]["n_items"] == 2  # hb-b: its only completeness criterion is -5
    assert criteria_tags[CLUSTER]["score"] == 0.0  # -0.6 clamped, per item or as the mean
    for tag, values in ITEM_TAGS[clip].items():
        entry = report["tags"]["items"][tag]
        assert entry["score"] == pytest.approx(clipped(values, clip)), tag
        assert entry["ci95"] == pytest.approx(bootstrap(values, clip)), tag
        assert entry["n_items"] == len(values) and "n_criteria" not in entry
    assert report["judges"][0]["mean_score"] == pytest.approx(clipped(scores, clip))


def test_clip_matters_where_penalties_outweigh(tmp_path: Path) -> None:
    per_item = report_json(healthbench_experiment(tmp_path / "item", "item"))["tags"]
    per_mean = report_json(healthbench_experiment(tmp_path / "mean", "mean"))["tags"]
    assert per_item["criteria"][ACC]["score"] == pytest.approx(1 / 3)
    assert per_mean["criteria"][ACC]["score"] == pytest.approx(0.4 / 3)
    assert per_item["items"][EMERGENCY]["score"] == pytest.approx(7 / 24)
    assert per_mean["items"][EMERGENCY]["score"] == pytest.approx((7 / 12 - 3 / 8) / 2)
    assert per_item["items"][HEDGING] == per_mean["items"][HEDGING]  # nothing negative there


def test_an_abstained_positive_criterion_leaves_its_tag_out_unless_scored(tmp_path: Path) -> None:
    items = [
        Graded(
            "x",
            [
                {"requirement": "States the dose", "weight": 5, "tags": ["axis:accuracy"]},
                {"requirement": "Overdoses", "weight": -5, "tags": ["axis:accuracy"]},
                {"requirement": "Is kind", "weight": 5, "tags": ["axis:tone"]},
            ],
            {"i1": ["CANNOT_ASSESS"], "i2": ["UNMET"], "i3": ["MET"]},
        ),
        Graded("y", [{"requirement": "Is kind", "weight": 5}], {"i1": ["MET"]}, tags=["t"]),
    ]

    def tags(strategy: str) -> dict[str, Any]:
        rubric = {
            "criteria": [],
            "grader": {
                "judges": [{"model": "openai/m", "id": "j"}],
                "cannot_assess": {"strategy": strategy},
            },
        }
        out = write_item_experiment(tmp_path / strategy, rubric, items)
        return dict(report_json(out)["tags"])

    skipped = tags("skip")  # x's only positive accuracy criterion abstained: x left out
    assert skipped["criteria"]["axis:accuracy"] == {
        "score": None,
        "ci95": None,
        "n_items": 0,
        "n_criteria": 2,
    }
    assert skipped["criteria"]["axis:tone"]["score"] == 1.0
    assert skipped["items"] == {"t": {"score": 1.0, "ci95": None, "n_items": 1}}
    zero = tags("zero")  # scored as 0: 0 - 0 over 5
    assert zero["criteria"]["axis:accuracy"]["score"] == 0.0
    assert zero["criteria"]["axis:accuracy"]["n_items"] == 1


def test_gate_paths_reach_tags_with_colons_and_dots(tmp_path: Path) -> None:
    gate = [
        {"metric": f"tags.criteria.{ACC}.score", "min": 0.2},
        {"metric": f"tags.items.{HEDGING}.score", "min": 0.5},
        {"metric": "item_criteria.met_rate", "min": 0.7},
    ]
    out = healthbench_experiment(tmp_path / "exp", "mean", gate)
    checks = report_json(out)["gate"]["checks"]
    assert [(c["metric"], c["passed"]) for c in checks] == [
        (f"tags.criteria.{ACC}.score", False),
        (f"tags.items.{HEDGING}.score", True),
        ("item_criteria.met_rate", True),
    ]
    assert checks[0]["value"] == pytest.approx(0.4 / 3)
    junit = cli("report", out, "--format", "junit")
    assert junit.exit_code == 1
    assert f'name="tags.criteria.{ACC}.score' in junit.stdout and "<failure" in junit.stdout
    dotted = [Graded("d", [{"requirement": "r", "tags": ["theme:a.b"]}], {"i1": ["MET"]})]
    rubric = {
        "criteria": [],
        "grader": {"judges": [{"model": "openai/m", "id": "j"}]},
        "gate": [{"metric": "tags.criteria.theme:a.b.score", "min": 1.0}],
    }
    report = report_json(write_item_experiment(tmp_path / "dots", rubric, dotted))
    assert report["gate"]["checks"][0]["value"] == 1.0


def test_every_format_shows_the_tags_grouped_by_prefix(tmp_path: Path) -> None:
    out = healthbench_experiment(tmp_path / "exp", "mean")
    table = cli("report", out).stdout
    for title in ("Criterion tags: axis", "Criterion tags: level", "Item tags: theme"):
        assert title in table
    assert "Item criteria" in table and "clip: mean" in table
    markdown = cli("report", out, "--format", "markdown").stdout
    assert "### Criterion tags: axis" in markdown and "### Item tags: theme" in markdown
    assert f"| {ACC} | 0.133 | [0.000, 1.000] | 3 | 4 |" in markdown
    rows = list(csv.DictReader(io.StringIO(cli("report", out, "--format", "csv").stdout)))
    assert [r["id"] for r in rows] == ["hb-a", "hb-b", "hb-c"]
    assert [r[f"tags.criteria.{ACC}"] for r in rows] == ["-0.6", "1.0", "0.0"]
    assert [r[f"tags.criteria.{COMP}"] for r in rows] == ["0.0", "", "1.0"]
    assert [r[f"tags.items.{HEDGING}"] for r in rows] == ["", repr(7 / 12), "0.6"]
    assert cli("report", out, "--format", "html").exit_code == 0
    page = (out / "report.html").read_text()
    for key in ("tags-criteria-axis", "tags-criteria-level", "tags-items-theme"):
        assert f'data-table="{key}"' in page
