"""Gate metric paths checked against the report's shape for one rubric (core/metric_paths.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autorubric_cli.core.gate import resolve_metric
from autorubric_cli.core.metric_paths import metric_problem, unreachable_bound
from tests.cli.runner_support import DEMO_DATA, DEMO_RUBRIC, demo_run

CRITERIA = [("accurate", "binary"), ("clarity", "ordinal"), ("tone", "nominal"), ("v1.2", "binary")]


@pytest.mark.parametrize(
    "path",
    [
        "score.mean",
        "score.n",
        "criteria.accurate.met_rate",
        "criteria.accurate.mean_value",
        "criteria.clarity.mean_value",
        "criteria.v1.2.met_rate",  # a name holding a dot
        "criteria.tone.distribution.Technical",
        "agreement.mean_agreement",
        "agreement.criteria.tone.krippendorff_alpha",
        "ground_truth.criteria.accurate.f1",
        "ground_truth.criteria.clarity.quadratic_kappa",
        "ground_truth.criteria.tone.per_option.Technical.f1",
        "ground_truth.judges.careful.score.pearson",
        "ground_truth.overall.mean_kappa",
        "cost",
    ],
)
def test_a_number_of_the_report_is_accepted(path: str) -> None:
    assert metric_problem(path, CRITERIA) is None


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("score.maen", "'score' has no key 'maen'; did you mean 'score.mean'?"),
        ("scores.mean", "the report has no key 'scores'; did you mean 'score'?"),
        ("criteria.acurate.met_rate", "no criterion named 'acurate'; did you mean "),
        ("criteria.blame.met_rate", "no criterion named 'blame'; the rubric's criteria: accurate,"),
        ("criteria.tone.met_rate", "`met_rate` is defined for binary criteria only and 'tone' is"),
        ("criteria.accurate.met_rat", "did you mean 'criteria.accurate.met_rate'?"),
        ("ground_truth.criteria.clarity.f1", "'ground_truth.criteria.clarity' has no key 'f1'"),
        ("ground_truth.criteria.accurate.spearman", "has no key 'spearman'"),
        ("score", "metric 'score' is not a number; a gate needs one: one of score.n, score.mean"),
        ("status", "metric 'status' is not a number"),
        ("gate.passed", "metric 'gate.passed' is not a number"),
        ("score.ci95.low", "'score.ci95' is not a block of named figures"),
    ],
)
def test_a_path_naming_no_number_says_why(path: str, expected: str) -> None:
    problem = metric_problem(path, CRITERIA)
    assert problem is not None and expected in problem, problem
    assert "\n" not in problem


def test_criterion_did_you_mean_names_the_whole_path() -> None:
    problem = metric_problem("criteria.acurate.met_rate", CRITERIA)
    assert problem is not None and problem.endswith("did you mean 'criteria.accurate'?")


def numeric_paths(node: Any, prefix: str = "") -> Iterator[str]:
    """Every number of a report JSON as a gate path (named list items by name)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from numeric_paths(value, f"{prefix}{key}.")
    elif isinstance(node, list):
        for value in node:
            if isinstance(value, dict) and "name" in value:
                yield from numeric_paths(value, f"{prefix}{value['name']}.")
    elif isinstance(node, int | float) and not isinstance(node, bool):
        yield prefix[:-1]


def test_every_number_of_a_real_report_is_a_valid_gate_path(tmp_path: Path) -> None:
    directory = demo_run(tmp_path, limit=8)
    built = json.loads((directory / "report.json").read_text())
    criteria = [(c["name"], c["kind"]) for c in built["criteria"]]
    paths = list(numeric_paths(built))
    assert any(p.startswith("ground_truth.criteria.") for p in paths)
    for path in paths:
        if path.startswith(("gate.", "judges.", "errored_items.")):
            continue  # lists indexed by position or id: not reachable by a gate path
        assert metric_problem(path, criteria) is None, path
        resolve_metric(built, path)  # the gate itself finds it
    assert DEMO_RUBRIC.exists() and DEMO_DATA.exists()


@pytest.mark.parametrize(
    ("metric", "low", "normalize", "refused"),
    [
        ("score.mean", 1.5, True, True),
        ("score.mean", 1.0, True, False),
        ("score.min", 1.01, True, True),
        ("score.mean", 1.5, False, False),  # raw scores can exceed 1
        ("criteria.a.mean_value", 1.5, True, False),
        ("score.mean", None, True, False),
    ],
)
def test_a_bound_no_normalized_score_can_reach_is_refused(
    metric: str, low: float | None, normalize: bool, refused: bool
) -> None:
    assert (unreachable_bound(metric, low, normalize) is not None) is refused
