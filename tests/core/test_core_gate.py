"""The CI gate (docs/guides/ci.md, core/gate.py)."""

from __future__ import annotations

from typing import Any

import pytest

from autorubric_cli.core.config import GateCheck
from autorubric_cli.core.gate import evaluate_check, evaluate_gate, resolve_metric


@pytest.fixture
def report() -> dict[str, Any]:
    return {
        "experiment": "demo",
        "score": {"mean": 0.71, "median": 0.75, "std": None, "ci95": [0.67, 0.75]},
        "criteria": [
            {"name": "energy_density", "kind": "binary", "met_rate": 0.8, "mean_value": 0.8},
            {"name": "v1", "kind": "binary", "met_rate": 0.1, "mean_value": 0.1},
            {"name": "v1.2", "kind": "binary", "met_rate": 0.5, "mean_value": 0.5},
            {"name": "satisfaction", "kind": "ordinal", "met_rate": None, "mean_value": 0.6},
        ],
        "ground_truth": {"ensemble": {"accuracy": 0.9, "flag": True}},
    }


def check(metric: str, lo: float | None = None, hi: float | None = None) -> GateCheck:
    return GateCheck(metric=metric, min=lo, max=hi)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("score.mean", 0.71),
        ("score.median", 0.75),
        ("criteria.energy_density.met_rate", 0.8),
        ("criteria.satisfaction.mean_value", 0.6),
        ("criteria.v1.met_rate", 0.1),
        ("criteria.v1.2.met_rate", 0.5),  # a name holding a dot
        ("ground_truth.ensemble.accuracy", 0.9),
    ],
)
def test_resolve_metric(report: dict[str, Any], path: str, expected: float) -> None:
    assert resolve_metric(report, path) == expected


def test_resolve_metric_returns_whole_nodes(report: dict[str, Any]) -> None:
    assert resolve_metric(report, "criteria.v1.2")["met_rate"] == 0.5
    assert resolve_metric(report, "score") is report["score"]


@pytest.mark.parametrize(
    "path",
    ["score.p99", "nope", "criteria.missing.met_rate", "criteria.v1.3.met_rate", "score.mean.x"],
)
def test_resolve_metric_missing_raises_key_error(report: dict[str, Any], path: str) -> None:
    with pytest.raises(KeyError):
        resolve_metric(report, path)


@pytest.mark.parametrize(
    ("gate_check", "passed"),
    [
        (check("score.mean", lo=0.7), True),
        (check("score.mean", lo=0.71), True),  # bounds are inclusive
        (check("score.mean", lo=0.8), False),
        (check("score.mean", hi=0.71), True),
        (check("score.mean", hi=0.5), False),
        (check("score.mean", lo=0.5, hi=0.9), True),
        (check("score.mean", lo=0.75, hi=0.9), False),
        (check("score.mean", lo=0.5, hi=0.7), False),
        (check("criteria.v1.2.met_rate", hi=0.05), False),
        (check("criteria.v1.met_rate", hi=0.1), True),
    ],
)
def test_check_bounds(report: dict[str, Any], gate_check: GateCheck, passed: bool) -> None:
    result = evaluate_check(report, gate_check)
    assert result["passed"] is passed
    assert result["metric"] == gate_check.metric
    assert result["value"] == resolve_metric(report, gate_check.metric)
    assert result.get("min") == gate_check.min
    assert result.get("max") == gate_check.max


def test_missing_metric_fails_with_reason(report: dict[str, Any]) -> None:
    result = evaluate_check(report, check("criteria.nope.met_rate", lo=0.0))
    assert result["passed"] is False
    assert result["value"] is None
    assert "not found" in result["reason"]


@pytest.mark.parametrize(
    "metric",
    ["score.std", "criteria.satisfaction.met_rate", "ground_truth.ensemble.flag", "score.ci95"],
)
def test_undefined_metric_fails_with_reason(report: dict[str, Any], metric: str) -> None:
    result = evaluate_check(report, check(metric, lo=0.0))
    assert result["passed"] is False
    assert result["value"] is None
    assert result["reason"]


def test_gate_is_and_over_checks(report: dict[str, Any]) -> None:
    good = [check("score.mean", lo=0.7), check("criteria.v1.met_rate", hi=0.2)]
    result = evaluate_gate(report, good)
    assert result is not None
    assert result["passed"] is True
    assert [c["passed"] for c in result["checks"]] == [True, True]
    result = evaluate_gate(report, [*good, check("score.mean", lo=0.8)])
    assert result is not None
    assert result["passed"] is False
    assert [c["passed"] for c in result["checks"]] == [True, True, False]
    result = evaluate_gate(report, [check("missing.metric", hi=1.0), *good])
    assert result is not None
    assert result["passed"] is False


def test_gate_without_checks_is_none(report: dict[str, Any]) -> None:
    assert evaluate_gate(report, []) is None


def test_gate_check_needs_a_bound() -> None:
    with pytest.raises(ValueError, match="min"):
        GateCheck(metric="score.mean")
    with pytest.raises(ValueError):
        GateCheck(metric="score.mean", min=float("nan"))
