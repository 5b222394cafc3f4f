"""The Rich report: summary, criteria, judges, agreement, ground truth, gate."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from autorubric_cli.report.formats import (
    CRITERIA_CAPTION,
    NOT_ASSESSED,
    SIMULATED_NOTE,
    SIMULATED_TAG,
    WITH_OUTCOME,
    dollars,
    gate_word,
    interval,
    number,
)
from autorubric_cli.report.labels_section import human_labels_tables
from autorubric_cli.report.models import GateResult, Report, ScoreSummary
from autorubric_cli.report.render_agreement import agreement_table
from autorubric_cli.report.render_cascade import cascade_tables
from autorubric_cli.report.render_metrics import ground_truth_tables
from autorubric_cli.report.render_stats import (
    BIAS_COLUMNS,
    BIAS_NOTE,
    BIAS_TITLE,
    bias_rows,
    criterion_ci,
    has_clustered_criteria,
    interval_note,
    shown_ci,
)
from autorubric_cli.report.render_tags import (
    item_criteria_table,
    item_tables,
    rich_rows,
    tag_tables,
)


def score_cells(score: ScoreSummary) -> list[str]:
    figures = (score.mean, score.median, score.std, score.min, score.max)
    return [*(number(v) for v in figures), interval(shown_ci(score))]


def summary_table(report: Report) -> Table:
    title = f"autorubric · {report.experiment} · {report.status}"
    if report.simulated:
        title += f" · {SIMULATED_TAG.upper()}"
    table = Table(title=title, caption=interval_note(report.score))
    for column in ("items", "errored", "mean", "median", "std", "min", "max", "95% CI"):
        table.add_column(column, justify="right")
    items = report.items
    counts = [f"{number(items.completed)}/{number(items.total)}", number(items.errored)]
    table.add_row(*counts, *score_cells(report.score))
    if report.what_if is not None:
        table.add_row("what-if", "", *score_cells(report.what_if.score))
    return table


NAME_WIDTH = 32  # a longer name folds onto a second line rather than losing its end
CRITERIA_COLUMNS = ("weight", "met rate", "mean value", NOT_ASSESSED, WITH_OUTCOME)


def name_column(table: Table, header: str, names: list[str]) -> None:
    """A column of names (criteria, judges, models): never cut, folded only past NAME_WIDTH."""
    longest = max((len(n) for n in names), default=0)
    wide = min(longest, NAME_WIDTH)  # never narrower: a table too wide for it is stacked (fit.py)
    table.add_column(header, no_wrap=longest <= NAME_WIDTH, overflow="fold", min_width=wide)


def criteria_table(report: Report) -> Table:
    table = Table(title="Criteria", caption=CRITERIA_CAPTION, caption_justify="left")
    name_column(table, "criterion", [c.name for c in report.criteria])
    table.add_column("kind")
    for column in CRITERIA_COLUMNS:
        table.add_column(column, justify="right")
    clustered = has_clustered_criteria(report)
    if clustered:
        table.add_column("95% CI (clustered)", justify="right")
    for c in report.criteria:
        table.add_row(
            c.name,
            c.kind,
            number(c.weight, 1),
            number(c.met_rate),
            number(c.mean_value),
            number(c.cannot_assess_rate),
            number(c.agreement),
            *([criterion_ci(c)] if clustered else []),
        )
    return table


def bias_table(report: Report) -> Table:
    table = Table(title=BIAS_TITLE, caption=BIAS_NOTE)
    for column in BIAS_COLUMNS:
        table.add_column(column, overflow="fold")
    for row in bias_rows(report):
        table.add_row(*row)
    return table


def distribution_table(report: Report) -> Table:
    """Each criterion's outcomes over items, in the rubric's option order."""
    table = Table(title="Outcomes")  # a title wider than a narrow table would wrap
    name_column(table, "criterion", [c.name for c in report.criteria])
    table.add_column("items per option, in option order", ratio=1)
    for c in report.criteria:
        table.add_row(c.name, " · ".join(f"{k} {number(v)}" for k, v in c.distribution.items()))
    return table


def judges_table(report: Report) -> Table:
    table = Table(title="Judges")
    name_column(table, "judge", [j.id for j in report.judges])
    name_column(table, "model", [j.model for j in report.judges])
    for column in ("weight", "mean score", "votes", "error votes"):
        table.add_column(column, justify="right")
    for j in report.judges:
        model = j.model + (" (simulated)" if j.simulated else "")
        table.add_row(
            j.id, model, number(j.weight, 2), number(j.mean_score), number(j.votes),
            number(j.errors),
        )  # fmt: skip
    return table


def judge_costs_table(report: Report) -> Table:
    table = Table(title="Judges: tokens and cost")
    name_column(table, "judge", [j.id for j in report.judges])
    for column in ("tokens", "cost", "cached votes", "cost saved", "prompt cache saved"):
        table.add_column(column, justify="right")
    for j in report.judges:
        tokens = sum(j.usage.get(k, 0) for k in ("prompt_tokens", "completion_tokens"))
        table.add_row(
            j.id, number(tokens), dollars(j.cost), number(j.cached),
            dollars(j.cost_saved),
            dollars(j.prompt_cache_saved),
        )  # fmt: skip
    return table


def cost_line(report: Report) -> str:
    """Paid in this experiment vs served by the call cache (docs/guides/cache-and-cost.md): never
    counted twice."""
    return (
        f"cost {dollars(report.cost)} paid · {dollars(report.cost_saved)} saved by the call cache"
    )


SINGLE_JUDGE = (
    "Agreement between judges: not shown, this run has one judge "
    "(add a second judge to `grader.judges` to measure it)."
)
SIMULATED_BANNER = f"[yellow]{SIMULATED_NOTE}[/]"


def gate_table(gate: GateResult, shard: str | None = None) -> Table:
    verdict = f"[{'green' if gate.passed else 'red'}]{gate_word(gate.passed)}[/]"
    if shard is not None:
        verdict += f" (shard {shard} only: `autorubric merge` the shards for the whole run)"
    table = Table(title=f"Gate: {verdict}")
    for column in ("metric", "min", "max", "value", "result"):
        table.add_column(column)
    for check in gate.checks:
        colour = "green" if check.passed else "red"
        result = f"[{colour}]{gate_word(check.passed)}[/] {check.reason or ''}".strip()
        table.add_row(
            check.metric, number(check.min), number(check.max), number(check.value), result
        )
    return table


def status_lines(report: Report, directory: str | None) -> list[str]:
    """Why a run is not complete, and how to finish it."""
    lines = []
    if report.status == "failed" and report.error:
        lines.append(f"[red]failed:[/] {report.error}")
    if report.status in ("failed", "interrupted") and directory is not None:
        lines.append(f"finish it with: autorubric resume {directory}")
    return lines


def print_status(report: Report, console: Console, directory: str | None) -> None:
    for line in status_lines(report, directory):
        console.print(line, highlight=False, soft_wrap=True)


def render_tables(report: Report, console: Console, directory: str | None = None) -> None:
    console.print(summary_table(report))
    print_status(report, console, directory)
    if report.criteria:
        console.print(criteria_table(report))
    for rows in item_tables(report):
        console.print(rich_rows(rows))
    console.print(judges_table(report))
    console.print(judge_costs_table(report))
    console.print(cost_line(report))
    if report.criteria:
        console.print(distribution_table(report))
    for cascade in cascade_tables(report.cascade):
        console.print(cascade)
    if len(report.judges) < 2:
        console.print(SINGLE_JUDGE)
    elif report.criteria:
        console.print(agreement_table(report.agreement))
    if report.ground_truth is not None:
        for table in ground_truth_tables(report.ground_truth):
            console.print(table)
    if report.human_labels is not None:
        for table in human_labels_tables(report.human_labels):
            console.print(table)
    if report.judge_bias is not None:
        console.print(bias_table(report))
    if report.gate is not None:
        console.print(gate_table(report.gate, report.shard))
    for warning in report.warnings:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False, soft_wrap=True)
    if report.simulated:
        console.print(SIMULATED_BANNER, highlight=False)


ERRORS_SHOWN = 10


def render_compact(report: Report, console: Console, directory: str, html: str | None) -> None:
    """The end of `run`/`resume`: score summary, criteria, gate, errors; then where the rest is."""
    console.print(summary_table(report))
    print_status(report, console, directory)
    if report.criteria:
        console.print(criteria_table(report))
    for rows in [item_criteria_table(report), *tag_tables(report)]:
        if rows is not None:
            console.print(rich_rows(rows))
    if report.gate is not None:
        console.print(gate_table(report.gate, report.shard))
    errored = report.errored_items
    for item in errored[:ERRORS_SHOWN]:
        console.print(f"[red]error:[/] {item.id}: {item.error}", highlight=False)
    if len(errored) > ERRORS_SHOWN:
        console.print(f"[red]… and {len(errored) - ERRORS_SHOWN} more errored items[/]")
    for warning in report.warnings:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False)
    if report.simulated:
        console.print(SIMULATED_BANNER, highlight=False)
    where = f"{html} · " if html else ""
    line = f"Full report: {where}all tables: autorubric report {directory}"
    console.print(line, highlight=False, soft_wrap=True)  # one line: people copy the path
