"""Markdown, CSV (one row per item) and JUnit renderings of the report."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any
from xml.etree import ElementTree as ET

from autorubric_cli.core.evaluate import ScoringRules, non_na_values
from autorubric_cli.core.item_rubric import record_rubric
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.report.fold_items import record_tag_scores
from autorubric_cli.report.formats import (
    CRITERIA_CAPTION,
    SIMULATED_NOTE,
    SIMULATED_TAG,
    dollars,
    exact,
    gate_word,
    number,
    plural,
)
from autorubric_cli.report.gate_text import check_name, check_sentence
from autorubric_cli.report.labels_section import (
    HUMAN_LABELS,
    JUDGES_VS_LABELS,
    RATER_COLUMNS,
    judges_vs_labels,
    rater_rows,
    raters_summary,
)
from autorubric_cli.report.models import (
    ErroredItem,
    GateCheckResult,
    GateResult,
    HumanLabelsSection,
    Report,
)
from autorubric_cli.report.models_tags import TagsSection
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
from autorubric_cli.report.render_table import (
    CRITERIA_COLUMNS,
    cost_line,
    score_cells,
)
from autorubric_cli.report.render_tags import item_tables


def _md_row(cells: Iterable[Any]) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"


def _md_table(header: list[str], rows: list[list[Any]]) -> list[str]:
    return [_md_row(header), _md_row(["---"] * len(header)), *(_md_row(r) for r in rows)]


def render_markdown(report: Report) -> str:
    items = report.items
    title = f"## autorubric · {report.experiment} · {report.status}"
    lines = [title, ""]
    if report.simulated:
        lines += [f"> {SIMULATED_NOTE}", ""]
    counts = [f"{number(items.completed)}/{number(items.total)}", number(items.errored)]
    lines += _md_table(
        ["items", "errored", "mean", "median", "std", "min", "max", "95% CI"],
        [[*counts, *score_cells(report.score)]],
    )
    lines += ["", interval_note(report.score)]
    if report.criteria:
        lines += _md_criteria(report)
    for table in item_tables(report):
        lines += ["", f"### {table.title}", "", *_md_table(table.header, table.rows)]
        lines += ["", table.caption] if table.caption else []
    lines += ["", "### Judges", ""]
    lines += _md_table(
        ["judge", "mean score", "votes", "error votes", "cost", "cached votes", "cost saved"],
        [
            [j.id, number(j.mean_score), number(j.votes), number(j.errors), dollars(j.cost)]
            + [number(j.cached), dollars(j.cost_saved)]
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
        lines += ["", f"### Gate: {gate_word(gate.passed)}", ""]
        lines += _md_table(GATE_COLUMNS, [gate_row(c) for c in gate.checks])
    if report.warnings:
        lines += ["", "### Warnings", "", *(f"- {w}" for w in report.warnings)]
    return "\n".join(lines) + "\n"


def _md_criteria(report: Report) -> list[str]:
    """The shared criteria's table."""
    lines = ["", "### Criteria", ""]
    clustered = has_clustered_criteria(report)
    lines += _md_table(
        ["criterion", "kind", *CRITERIA_COLUMNS] + (["95% CI (clustered)"] if clustered else []),
        [
            [c.name, c.kind, number(c.weight, 1), number(c.met_rate), number(c.mean_value)]
            + [number(c.cannot_assess_rate), number(c.agreement)]
            + ([criterion_ci(c)] if clustered else [])
            for c in report.criteria
        ],
    )
    return lines + ["", CRITERIA_CAPTION]


GATE_COLUMNS = ["metric", "min", "max", "value", "result"]


def gate_row(check: GateCheckResult) -> list[str]:
    """A row of `GATE_COLUMNS`; the result is PASSED or FAILED, then why it failed."""
    result = f"{gate_word(check.passed)} {check.reason or ''}".strip()
    return [check.metric, number(check.min), number(check.max), number(check.value), result]


def _md_human_labels(section: HumanLabelsSection) -> list[str]:
    """The table output's human-labels tables, their titles as headings."""
    lines = ["", f"### {HUMAN_LABELS}", "", raters_summary(section), ""]
    lines += _md_table(list(RATER_COLUMNS), rater_rows(section))
    versus = judges_vs_labels(section)
    if versus is not None:
        lines += ["", f"### {JUDGES_VS_LABELS}", "", *_md_table(*versus)]
    return lines


def render_csv(
    records: Iterable[ItemRecord], rubric: Rubric, tags: TagsSection | None = None
) -> str:
    """One row per item; figures at full precision, empty when undefined; the `simulated`
    column says on every row whether simulated judges graded the item. The outcome columns are
    the shared criteria's; with tags, one column per tag (`tags.criteria.<TAG>`: the item's
    score for that criterion tag; `tags.items.<TAG>`: the item's score when it has the tag),
    so the mean of a column is the tag's score (under `clip: mean`, before clamping)."""
    criteria = [c.name for c in rubric.criteria]
    judges = [j.judge_id for j in rubric.grader.judges]
    by_criteria = list(tags.criteria) if tags is not None else []
    by_items = list(tags.items) if tags is not None else []
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            *("id", "index", "status", "score", "raw_score", "length_penalty"),
            *criteria,
            *(f"judge:{j}" for j in judges),
            *("cost", "duration_s", "error", "simulated"),
            *(f"tags.criteria.{t}" for t in by_criteria),
            *(f"tags.items.{t}" for t in by_items),
        ]
    )
    rules = ScoringRules.from_rubric(rubric)
    for r in records:
        outcomes = [
            c.option.label if c.option else (c.verdict.value if c.verdict else "")
            for c in r.criteria[: len(criteria)]
        ]
        scores = item_tag_scores(rubric, rules, r) if by_criteria else {}
        writer.writerow(
            [
                *(r.id, r.index, r.status, exact(r.score), exact(r.raw_score)),
                exact(r.length_penalty),
                *outcomes,
                *(exact(r.judge_scores.get(j)) for j in judges),
                *(exact(r.cost), f"{r.duration_s:.3f}", r.error or ""),
                "true" if r.simulated else "false",
                *(exact(scores.get(t)) for t in by_criteria),
                *(exact(r.score) if t in r.tags else "" for t in by_items),
            ]
        )
    return out.getvalue()


def item_tag_scores(rubric: Rubric, rules: ScoringRules, record: ItemRecord) -> dict[str, float]:
    """The record's criterion-tag scores, as the report's fold computes them."""
    criteria = record_rubric(rubric, record).criteria
    definitions = [(c.weight, c.tags, non_na_values(c)) for c in criteria]
    return record_tag_scores(rules, definitions, record.criteria)[0]


def render_junit(report: Report) -> str:
    """One test case per gate check and one per errored item."""
    return junit_xml(
        report.experiment,
        report.items.errored,
        report.gate,
        report.errored_items,
        simulated=report.simulated,
    )


def junit_suite_name(experiment: str, simulated: bool) -> str:
    """`autorubric.NAME`, marked `(simulated judges)` when no real model graded."""
    return f"autorubric.{experiment}" + (f" ({SIMULATED_TAG})" if simulated else "")


def junit_xml(
    experiment: str,
    errored: int,
    gate: GateResult | None,
    errored_items: list[ErroredItem],
    *,
    simulated: bool = False,
) -> str:
    """A check that failed on its value is a `<failure>` (the model is not good enough); an
    errored item, and a check left undefined by errored items, is an `<error>` (the run is
    broken). A simulated run says so in the suite's name and its `simulated` property."""
    suite = ET.Element("testsuite", name=junit_suite_name(experiment, simulated))
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="simulated", value=str(simulated).lower())
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
        message = check_sentence(check)
        if outcome == "error":
            message += f" because {plural(errored, 'item')} errored"
        add("autorubric.gate", check_name(check), outcome, message)
    for item in errored_items:
        add("autorubric.items", item.id, "error", item.error)
    cases = len(suite) - 1  # the properties are not a test case
    if cases == 0:
        add("autorubric", "run", None)
        cases = 1
    suite.set("tests", str(cases))
    suite.set("failures", str(counts["failure"]))
    suite.set("errors", str(counts["error"]))
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
