"""Markdown, CSV (one row per item) and JUnit renderings of the report."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any
from xml.etree import ElementTree as ET

from autorubric_cli.core.records import ItemRecord
from autorubric_cli.report.labels_section import (
    HUMAN_LABELS,
    JUDGES_VS_LABELS,
    RATER_COLUMNS,
    judges_vs_labels,
    rater_rows,
    raters_summary,
)
from autorubric_cli.report.models import ErroredItem, GateResult, HumanLabelsSection, Report
from autorubric_cli.report.render_cascade import (
    ESCALATION_HEADER,
    HEADER,
    cascade_rows,
    cascade_summary,
    escalation_rows,
)
from autorubric_cli.report.render_stats import (
    BIAS_COLUMNS,
    BIAS_NOTE,
    BIAS_TITLE,
    bias_rows,
    criterion_ci,
    has_clustered_criteria,
    interval_note,
)
from autorubric_cli.report.render_table import cost_line, fmt, score_cells


def _md_row(cells: Iterable[Any]) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"


def _md_table(header: list[str], rows: list[list[Any]]) -> list[str]:
    return [_md_row(header), _md_row(["---"] * len(header)), *(_md_row(r) for r in rows)]


def render_markdown(report: Report) -> str:
    items = report.items
    title = f"## autorubric · {report.experiment} · {report.status}"
    lines = [title, ""]
    if report.simulated:
        lines += ["> Results from **simulated** judges not real models.", ""]
    lines += _md_table(
        ["items", "errored", "mean", "median", "std", "min", "max", "95% CI"],
        [[f"{items.completed}/{items.total}", items.errored, *score_cells(report.score)]],
    )
    lines += ["", interval_note(report.score)]
    lines += ["", "### Criteria", ""]
    clustered = has_clustered_criteria(report)
    lines += _md_table(
        ["criterion", "kind", "met rate", "mean value", "CA/NA rate", "agreement"]
        + (["95% CI (clustered)"] if clustered else []),
        [
            [
                c.name,
                c.kind,
                fmt(c.met_rate),
                fmt(c.mean_value),
                fmt(c.cannot_assess_rate),
                fmt(c.agreement),
                *([criterion_ci(c)] if clustered else []),
            ]
            for c in report.criteria
        ],
    )
    lines += ["", "### Judges", ""]
    lines += _md_table(
        ["judge", "mean score", "votes", "error votes", "cost", "cached votes", "cost saved"],
        [
            [
                j.id,
                fmt(j.mean_score),
                j.votes,
                j.errors,
                fmt(j.cost, 4),
                j.cached,
                fmt(j.cost_saved, 4),
            ]
            for j in report.judges
        ],
    )
    lines += ["", cost_line(report)]
    if report.cascade is not None:
        lines += ["", "### Cascade", "", cascade_summary(report.cascade), ""]
        lines += _md_table(HEADER, cascade_rows(report.cascade))
        lines += [""] + _md_table(ESCALATION_HEADER, escalation_rows(report.cascade))
    if report.human_labels is not None:
        lines += _md_human_labels(report.human_labels)
    if report.judge_bias is not None:
        lines += ["", f"### {BIAS_TITLE}", "", *_md_table(BIAS_COLUMNS, bias_rows(report))]
        lines += ["", BIAS_NOTE]
    gate = report.gate
    if gate is not None:
        lines += ["", f"### Gate: {'PASSED' if gate.passed else 'FAILED'}", ""]
        lines += _md_table(
            ["metric", "min", "max", "value", "passed"],
            [[c.metric, fmt(c.min), fmt(c.max), fmt(c.value), c.passed] for c in gate.checks],
        )
    return "\n".join(lines) + "\n"


def _md_human_labels(section: HumanLabelsSection) -> list[str]:
    """The table output's human-labels tables, their titles as headings."""
    lines = ["", f"### {HUMAN_LABELS}", "", raters_summary(section), ""]
    lines += _md_table(list(RATER_COLUMNS), rater_rows(section))
    versus = judges_vs_labels(section)
    if versus is not None:
        lines += ["", f"### {JUDGES_VS_LABELS}", "", *_md_table(*versus)]
    return lines


def render_csv(records: Iterable[ItemRecord], criteria: list[str], judges: list[str]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            "id",
            "index",
            "status",
            "score",
            "raw_score",
            "length_penalty",
            *criteria,
            *(f"judge:{j}" for j in judges),
            "cost",
            "duration_s",
            "error",
        ]
    )
    for r in records:
        outcomes = [
            c.option.label if c.option else (c.verdict.value if c.verdict else "")
            for c in r.criteria
        ]
        writer.writerow(
            [
                r.id,
                r.index,
                r.status,
                _cell(r.score),
                _cell(r.raw_score),
                r.length_penalty,
                *outcomes,
                *(_cell(r.judge_scores.get(j)) for j in judges),
                _cell(r.cost),
                f"{r.duration_s:.3f}",
                r.error or "",
            ]
        )
    return out.getvalue()


def _cell(value: float | None) -> str:
    return "" if value is None else repr(value)


def render_junit(report: Report) -> str:
    """One test case per gate check and one per errored item."""
    return junit_xml(report.experiment, report.items.errored, report.gate, report.errored_items)


def junit_xml(
    experiment: str, errored: int, gate: GateResult | None, errored_items: list[ErroredItem]
) -> str:
    """A check that failed on its value is a `<failure>` (the model is not good enough); an
    errored item, and a check left undefined by errored items, is an `<error>` (the run is
    broken)."""
    suite = ET.Element("testsuite", name=f"autorubric.{experiment}")
    counts = {"failure": 0, "error": 0}

    def add(classname: str, name: str, outcome: str | None, message: str = "") -> None:
        case = ET.SubElement(suite, "testcase", classname=classname, name=name)
        if outcome is not None:
            counts[outcome] += 1
            ET.SubElement(case, outcome, message=message.strip(), type=f"autorubric.{outcome}")

    for check in gate.checks if gate else []:
        outcome = None
        if not check.passed:
            outcome = "error" if check.undefined_by_errors else "failure"
        bounds = f"min={check.min} max={check.max}"
        reason = check.reason or ""
        if outcome == "error":
            reason += f" because {errored} item(s) errored"
        add(
            "autorubric.gate",
            check.metric,
            outcome,
            f"{check.metric} = {check.value} ({bounds}) {reason}",
        )
    for item in errored_items:
        add("autorubric.items", item.id, "error", item.error)
    if len(suite) == 0:
        add("autorubric", "run", None)
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(counts["failure"]))
    suite.set("errors", str(counts["error"]))
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
