"""A rate (escalation rate, agreement, a cost ratio) is written one way in every output: a
fraction with three decimals, as the rubric's thresholds are (docs/guides/reports.md, "One
vocabulary"). Checked on a live cascade's report (table, Markdown, HTML) and on a calibration
(table, HTML): the same figure, the same text, and never a percentage."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from test_report_vocabulary import html_cells, markdown_cells, table_cells

from tests.support.cli import cli

CRITERIA = [{"name": "correct", "requirement": "The answer is correct"}]
CHEAP = {"model": "simulated/cheap", "id": "cheap", "samples": 3, "params": {"accuracy": 0.7}}
STRONG = {"model": "simulated/strong", "id": "strong", "params": {"accuracy": 0.95}}


def graded(tmp_path: Path, name: str, judges: list[dict], **grader: object) -> Path:
    rubric = tmp_path / f"{name}.yaml"
    body = {"criteria": CRITERIA, "grader": {"judges": judges, **grader}}
    rubric.write_text(yaml.safe_dump(body))
    data = tmp_path / "data.jsonl"
    lines = [json.dumps({"id": f"q{i}", "submission": "x"}) + "\n" for i in range(8)]
    data.write_text("".join(lines))
    done = cli("run", rubric, data, "--out", tmp_path / name, "--format", "json")
    assert done.exit_code == 0, done.stderr
    return tmp_path / name


def test_a_cascade_reports_its_rates_as_fractions_in_every_format(tmp_path: Path) -> None:
    cascade = {"first": ["cheap"], "then": ["strong"], "escalate_below": 1.0}
    out = graded(tmp_path, "live", [CHEAP, STRONG], cascade=cascade)
    section = json.loads((out / "report.json").read_text())["cascade"]
    rate = f"{section['escalation_rate']:.3f}"
    table = cli("report", out).stdout
    markdown = cli("report", out, "--format", "markdown").stdout
    cli("report", out, "--format", "html", "-o", tmp_path / "r.html")
    text, cells = html_cells((tmp_path / "r.html").read_text())
    for written in (table_cells(table), markdown_cells(markdown), cells):
        assert rate in written  # the criterion's escalation rate cell
    for summary in (table, markdown, text):
        assert f"escalated ({rate})" in " ".join(summary.split())
        assert "%" not in summary.split("Cascade")[1].split("Agreement")[0]


def test_a_calibration_writes_rates_as_fractions(tmp_path: Path) -> None:
    runs = graded(tmp_path, "first", [CHEAP]), graded(tmp_path, "then", [STRONG])
    table = cli("cascade", "calibrate", *runs)
    assert table.exit_code == 0, table.stderr
    data = json.loads(cli("cascade", "calibrate", *runs, "-f", "json").stdout)
    cli("cascade", "calibrate", *runs, "-f", "html", "-o", tmp_path / "c.html")
    text, cells = html_cells((tmp_path / "c.html").read_text())
    last = data["thresholds"][-1]
    for written in (table_cells(table.stdout), cells):
        assert f"{last['escalation_rate']:.3f}" in written
        assert f"{last['agreement_with_then']:.3f}" in written
    assert "%" not in table.stdout and "%" not in text
