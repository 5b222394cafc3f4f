"""Renderings of a comparison (docs/guides/compare.md): Rich tables, Markdown (a pull-request
comment), JUnit.

All read the typed comparison (`models_compare.CompareResult`) only.
"""

from __future__ import annotations

from xml.etree import ElementTree as ET

from rich.console import Console
from rich.table import Table

from autorubric_cli.report.compare_words import compare_lines, finding
from autorubric_cli.report.fit import build_table, print_fitted
from autorubric_cli.report.formats import ARROW, arrow, gate_word, interval, number, p_value, plural
from autorubric_cli.report.gate_text import check_name, check_sentence
from autorubric_cli.report.models import GateCheckResult
from autorubric_cli.report.models_compare import (
    CompareCheck,
    CompareResult,
    CriterionComparison,
    JudgeComparison,
    MovedItem,
    UncomparedCriterion,
)
from autorubric_cli.report.render_text import _md_table

MARKDOWN_MOVED = 5
CLASSNAME = "autorubric.compare"


def signed(value: float | None) -> str:
    return number(value, signed=True)


def title(result: CompareResult) -> str:
    return f"autorubric compare · {result.base.experiment} {ARROW} {result.new.experiment}"


def score_row(result: CompareResult) -> list[str]:
    s = result.score
    return [
        number(result.items.paired),
        number(s.base_mean),
        number(s.new_mean),
        signed(s.diff),
        interval(s.ci95),
        p_value(s.p_value),
        p_value(s.p_value_sign),
        f"{number(s.improved)}/{number(s.regressed)}/{number(s.unchanged)}",
    ]


SCORE_COLUMNS = ["paired", "base", "new", "diff", "95% CI", "p (Wilcoxon)", "p (sign)", "+/−/="]
CRITERIA_COLUMNS = [
    *("criterion", "kind", "n", "base", "new", "diff"),
    *("test", "p", "p (Holm)", "moves"),
]
GATE_COLUMNS = ["check", "bound", "value", "result", "reason"]
JUDGE_COLUMNS = ["judge", "n", "base", "new", "diff"]
MOVED_COLUMNS = ["id", "base", "new", "diff", "criterion flips"]


def only_tag(only: str | None) -> str:
    return f" (only {only.upper()})" if only is not None else ""


def criterion_row(c: CriterionComparison | UncomparedCriterion) -> list[str]:
    moves = ", ".join(f"{arrow(k)} {number(v)}" for k, v in c.transitions.items() if v)
    only = c.only if isinstance(c, UncomparedCriterion) else None
    return [
        c.name + only_tag(only),
        c.kind,
        number(c.n),
        number(c.base),
        number(c.new),
        signed(c.diff),
        c.test or "n/a",
        p_value(c.p_value),
        p_value(c.p_adjusted),
        moves or "none",
    ]


def criteria_rows(result: CompareResult) -> list[list[str]]:
    """The shared criteria, then the items' own pooled (`item criteria`)."""
    own = [] if result.item_criteria is None else [result.item_criteria.pooled]
    return [criterion_row(c) for c in [*result.criteria, *own]]


def item_criteria_line(result: CompareResult) -> str | None:
    """How the items' own criteria were paired, under the criteria table."""
    own = result.item_criteria
    if own is None:
        return None
    return (
        f"item criteria: {number(own.paired_criteria)} binary (item, criterion) pairs of the same "
        f"name and definition over {plural(own.items, 'item')}, pooled; p: Wilcoxon over the "
        f"items' changes of MET rate; {number(own.left_out)} left out (changed, or on one side "
        f"only) on {plural(own.differing_items, 'item')}"
    )


def judge_row(j: JudgeComparison) -> list[str]:
    name = j.id + only_tag(j.only)
    return [name, number(j.n), number(j.base_mean), number(j.new_mean), signed(j.diff)]


def moved_row(m: MovedItem) -> list[str]:
    flips = ", ".join(f"{f.criterion}: {f.base} {ARROW} {f.new}" for f in m.flips)
    return [m.id, number(m.base), number(m.new), signed(m.diff), flips or "none"]


def bound(check: CompareCheck) -> float | None:
    """The check's bound: `--max-drop`'s minimum, or the regression test's alpha."""
    return check.min if isinstance(check, GateCheckResult) else check.alpha


def checks(result: CompareResult) -> list[CompareCheck]:
    return [] if result.gate is None else result.gate.checks


def gate_rows(result: CompareResult) -> list[list[str]]:
    return [
        [
            c.metric,
            number(bound(c)),
            number(c.value),
            gate_word(c.passed),
            c.reason or "",
        ]
        for c in checks(result)
    ]


FREE_TEXT = ("moves", "criterion flips", "reason")  # wrap between words; every other cell whole


def _rich(heading: str, columns: list[str], rows: list[list[str]], named: bool = True) -> Table:
    """`named`: the first column holds names (criteria, judges, item ids)."""
    return build_table(heading, columns, rows, names=int(named), free=FREE_TEXT)


def render_compare_table(result: CompareResult, console: Console) -> None:
    print_fitted(console, _rich(title(result), SCORE_COLUMNS, [score_row(result)], named=False))
    console.print(finding(result.score), highlight=False)
    for line in compare_lines(result):
        console.print(line, highlight=False)
    print_fitted(console, _rich("Criteria", CRITERIA_COLUMNS, criteria_rows(result)))
    own = item_criteria_line(result)
    if own is not None:
        console.print(own, highlight=False)
    print_fitted(console, _rich("Judges", JUDGE_COLUMNS, [judge_row(j) for j in result.judges]))
    if result.moved:
        moved = [moved_row(m) for m in result.moved]
        print_fitted(console, _rich("Items that moved most", MOVED_COLUMNS, moved))
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False, soft_wrap=True)
    if result.gate is not None:
        heading = f"Gate: {gate_word(result.gate.passed)}"
        print_fitted(console, _rich(heading, GATE_COLUMNS, gate_rows(result)))


def render_compare_markdown(result: CompareResult) -> str:
    """Sized for a pull-request comment: summary, criteria, the top movers, warnings, gate."""
    lines = [f"## {title(result)}", "", f"**{finding(result.score)}**", ""]
    lines += [*(f"> {line}" for line in compare_lines(result)), ""]
    lines += _md_table(SCORE_COLUMNS, [score_row(result)])
    lines += ["", "### Criteria", ""]
    lines += _md_table(CRITERIA_COLUMNS, criteria_rows(result))
    own = item_criteria_line(result)
    lines += [] if own is None else ["", own]
    lines += ["", "### Judges", ""]
    lines += _md_table(JUDGE_COLUMNS, [judge_row(j) for j in result.judges])
    if result.moved:
        lines += ["", "### Items that moved most", ""]
        lines += _md_table(MOVED_COLUMNS, [moved_row(m) for m in result.moved[:MARKDOWN_MOVED]])
    if result.warnings:
        lines += ["", "### Warnings", "", *(f"- {w}" for w in result.warnings)]
    if result.gate is not None:
        lines += ["", f"### Gate: {gate_word(result.gate.passed)}", ""]
        lines += _md_table(GATE_COLUMNS, gate_rows(result))
    return "\n".join(lines) + "\n"


def compare_junit_suite(result: CompareResult) -> ET.Element:
    """One test case per gate check (one passing case when there is no gate)."""
    name = f"autorubric.compare.{result.base.experiment}.{result.new.experiment}"
    suite = ET.Element("testsuite", name=name)
    failures = 0
    for check in checks(result):
        case = ET.SubElement(suite, "testcase", classname=CLASSNAME, name=check_name(check))
        if not check.passed:
            failures += 1
            ET.SubElement(case, "failure", message=check_sentence(check))
    if len(suite) == 0:
        ET.SubElement(suite, "testcase", classname=CLASSNAME, name="compare")
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failures))
    words = [finding(result.score), *compare_lines(result)]
    ET.SubElement(suite, "system-out").text = "\n".join(words)
    return suite


def render_compare_junit(result: CompareResult) -> str:
    suite = compare_junit_suite(result)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
