"""docs/reference/exit-codes.md: a gate check left undefined only by errored items is exit 3, not
1."""

from __future__ import annotations

from typing import Any

import pytest

from autorubric_cli.core.config import GateCheck
from autorubric_cli.core.gate import evaluate_gate, gate_exit_code


def report_with(mean: float | None, errored: int, *checks: GateCheck) -> dict[str, Any]:
    report: dict[str, Any] = {
        "items": {"total": 10, "completed": 10, "errored": errored},
        "score": {"mean": mean},
        "criteria": [{"name": "c", "met_rate": None}],
    }
    report["gate"] = evaluate_gate(report, list(checks))
    return report


MEAN_08 = GateCheck(metric="score.mean", min=0.8)
RATE = GateCheck(metric="criteria.c.met_rate", min=0.5)
MISSING = GateCheck(metric="score.nope", min=0.5)


@pytest.mark.parametrize(
    ("mean", "errored", "checks", "code"),
    [
        (0.9, 0, [MEAN_08], 0),
        (0.9, 2, [MEAN_08], 3),  # passed, but items errored
        (0.5, 0, [MEAN_08], 1),
        (0.5, 2, [MEAN_08], 1),  # failed on a defined value: the model, whatever else broke
        (None, 10, [MEAN_08], 3),  # undefined only because every item errored
        (None, 0, [MEAN_08], 1),  # undefined with no error to blame
        (None, 10, [MEAN_08, RATE], 3),
        (0.5, 3, [MEAN_08, RATE], 1),  # one check failed on its value
        (0.9, 3, [MISSING], 1),  # a metric that does not exist is a gate failure
        (None, 0, [], 0),
        (None, 1, [], 3),
    ],
)
def test_exit_code(mean: float | None, errored: int, checks: list[GateCheck], code: int) -> None:
    assert gate_exit_code(report_with(mean, errored, *checks)) == code


def test_an_undefined_check_says_it_was_left_undefined_by_errors() -> None:
    (check,) = report_with(None, 4, MEAN_08)["gate"]["checks"]
    assert check == {
        "metric": "score.mean",
        "min": 0.8,
        "value": None,
        "passed": False,
        "reason": "metric is undefined",
        "undefined_by_errors": True,
    }
    (clean,) = report_with(None, 0, MEAN_08)["gate"]["checks"]
    assert "undefined_by_errors" not in clean
