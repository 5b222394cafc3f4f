"""JUnit output read with a real JUnit parser: broken runs are <error>, bad values <failure>."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from junitparser import Error, Failure, JUnitXml, TestSuite

from autorubric_cli.core.config import GateCheck
from autorubric_cli.core.gate import evaluate_gate
from autorubric_cli.report.models import ErroredItem, GateResult
from autorubric_cli.report.render_text import junit_xml


def parsed(report: dict[str, Any], tmp_path: Path) -> TestSuite:
    path = tmp_path / "junit.xml"
    gate = None if report["gate"] is None else GateResult.model_validate(report["gate"])
    errored = [ErroredItem.model_validate(e) for e in report["errored_items"]]
    path.write_text(junit_xml(report["experiment"], report["items"]["errored"], gate, errored))
    xml = JUnitXml.fromfile(str(path))
    return xml if isinstance(xml, TestSuite) else next(iter(xml))


def outcomes(suite: TestSuite) -> dict[str, tuple[str, str]]:
    found = {}
    for case in suite:
        kinds = [(type(r).__name__, r.message or "") for r in case.result]
        found[f"{case.classname}:{case.name}"] = kinds[0] if kinds else ("passed", "")
    return found


def report_with(mean: float | None, errored: list[tuple[str, str]]) -> dict[str, Any]:
    report: dict[str, Any] = {
        "experiment": "x",
        "items": {"total": 3, "completed": 3, "errored": len(errored)},
        "score": {"mean": mean, "max": 0.2},
        "errored_items": [{"id": i, "error": e} for i, e in errored],
    }
    checks = [GateCheck(metric="score.mean", min=0.5), GateCheck(metric="score.max", max=0.1)]
    report["gate"] = evaluate_gate(report, checks)
    return report


def test_errored_items_are_errors_and_bad_values_failures(tmp_path: Path) -> None:
    cause = "1 of 3 votes failed; first: c/j#0 connection: connection refused to http://h/v1"
    suite = parsed(report_with(0.7, [("item-2", cause)]), tmp_path)
    assert (suite.tests, suite.failures, suite.errors) == (3, 1, 1)
    found = outcomes(suite)
    assert found["autorubric.gate:score.mean min 0.500"] == ("passed", "")
    assert found["autorubric.gate:score.max max 0.100"] == (
        Failure.__name__,
        "score.max = 0.200 > max 0.100",
    )
    assert found["autorubric.items:item-2"] == (Error.__name__, cause)


def test_a_check_left_undefined_by_errors_is_an_error(tmp_path: Path) -> None:
    errored = [(f"i{k}", "1 of 1 votes failed; first: c/j#0 server: HTTP 500") for k in range(3)]
    suite = parsed(report_with(None, errored), tmp_path)
    found = outcomes(suite)
    kind, message = found["autorubric.gate:score.mean min 0.500"]
    assert kind == Error.__name__
    assert "undefined" in message and "3 items errored" in message
    assert found["autorubric.gate:score.max max 0.100"][0] == Failure.__name__
    assert (suite.failures, suite.errors) == (1, 4)


def test_a_clean_run_has_one_passing_case(tmp_path: Path) -> None:
    report = {"experiment": "x", "items": {"errored": 0}, "gate": None, "errored_items": []}
    suite = parsed(report, tmp_path)
    assert (suite.tests, suite.failures, suite.errors) == (1, 0, 0)
