"""The Rich report: summary, criteria, judges, agreement, ground truth, gate."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from autorubric_cli.report.labels_section import human_labels_tables
from autorubric_cli.report.models import GateResult, Report, ScoreSummary
from autorubric_cli.report.render_metrics import agreement_table, ground_truth_tables


def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def fmt_cost(value: float | None) -> str:
    """Dollars; `n/a` when unpriced (never 0)."""
    return "n/a" if value is None else f"${value:.4f}"


def fmt_ci(ci: list[float] | None) -> str:
    return "n/a" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def score_cells(score: ScoreSummary) -> list[str]:
    figures = (score.mean, score.median, score.std, score.min, score.max)
    return [*(fmt(v) for v in figures), fmt_ci(score.ci95)]


def summary_table(report: Report) -> Table:
    title = f"autorubric · {report.experiment} · {report.status}"
    if report.simulated:
        title += " · SIMULATED JUDGES"
    table = Table(title=title)
    for column in ("items", "errored", "mean", "median", "std", "min", "max", "95% CI"):
        table.add_column(column, justify="right")
    items = report.items
    counts = [f"{items.completed}/{items.total}", str(items.errored)]
    table.add_row(*counts, *score_cells(report.score))
    if report.what_if is not None:
        table.add_row("what-if", "", *score_cells(report.what_if.score))
    return table


def criteria_table(report: Report) -> Table:
    table = Table(title="Criteria")
    for column in (
        "criterion",
        "kind",
        "weight",
        "met rate",
        "mean value",
        "CA/NA rate",
        "agreement",
        "distribution",
    ):
        table.add_column(
            column, justify="left" if column in ("criterion", "kind", "distribution") else "right"
        )
    for c in report.criteria:
        dist = ", ".join(f"{k}: {v}" for k, v in c.distribution.items())
        table.add_row(
            c.name,
            c.kind,
            fmt(c.weight, 1),
            fmt(c.met_rate),
            fmt(c.mean_value),
            fmt(c.cannot_assess_rate),
            fmt(c.agreement),
            dist,
        )
    return table


def judges_table(report: Report) -> Table:
    table = Table(title="Judges")
    for column in (
        "judge",
        "model",
        "weight",
        "mean score",
        "votes",
        "error votes",
        "tokens",
        "cost",
        "cached",
        "cost saved",
        "prompt cache saved",
    ):
        table.add_column(column, justify="left" if column in ("judge", "model") else "right")
    for j in report.judges:
        tokens = sum(j.usage.get(k, 0) for k in ("prompt_tokens", "completion_tokens"))
        model = j.model + (" (simulated)" if j.simulated else "")
        table.add_row(
            j.id,
            model,
            fmt(j.weight, 2),
            fmt(j.mean_score),
            str(j.votes),
            str(j.errors),
            f"{tokens:,}",
            fmt_cost(j.cost),
            str(j.cached),
            fmt_cost(j.cost_saved),
            fmt_cost(j.prompt_cache_saved),
        )
    return table


def cost_line(report: Report) -> str:
    """Paid in this experiment vs served by the call cache (SPEC §9): never counted twice."""
    return (
        f"cost {fmt_cost(report.cost)} paid · {fmt_cost(report.cost_saved)} saved by the call cache"
    )


def gate_table(gate: GateResult) -> Table:
    verdict = "[green]PASSED[/]" if gate.passed else "[red]FAILED[/]"
    table = Table(title=f"Gate: {verdict}")
    for column in ("metric", "min", "max", "value", "result"):
        table.add_column(column)
    for check in gate.checks:
        result = "[green]pass[/]" if check.passed else f"[red]fail[/] {check.reason or ''}"
        table.add_row(check.metric, fmt(check.min), fmt(check.max), fmt(check.value), result)
    return table


def render_tables(report: Report, console: Console) -> None:
    console.print(summary_table(report))
    console.print(criteria_table(report))
    console.print(judges_table(report))
    console.print(cost_line(report))
    console.print(agreement_table(report.agreement))
    if report.ground_truth is not None:
        for table in ground_truth_tables(report.ground_truth):
            console.print(table)
    if report.human_labels is not None:
        for table in human_labels_tables(report.human_labels):
            console.print(table)
    if report.gate is not None:
        console.print(gate_table(report.gate))
    for warning in report.warnings:
        console.print(f"[yellow]warning:[/] {warning}")
    if report.simulated:
        console.print(
            "[yellow]These results come from SIMULATED judges (offline demo), not real models.[/]"
        )


ERRORS_SHOWN = 10


def render_compact(report: Report, console: Console, directory: str, html: str | None) -> None:
    """The end of `run`/`resume`: score summary, criteria, gate, errors; then where the rest is."""
    console.print(summary_table(report))
    console.print(criteria_table(report))
    if report.gate is not None:
        console.print(gate_table(report.gate))
    errored = report.errored_items
    for item in errored[:ERRORS_SHOWN]:
        console.print(f"[red]error:[/] {item.id}: {item.error}", highlight=False)
    if len(errored) > ERRORS_SHOWN:
        console.print(f"[red]… and {len(errored) - ERRORS_SHOWN} more errored items[/]")
    for warning in report.warnings:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False)
    if report.simulated:
        console.print(
            "[yellow]These results come from SIMULATED judges (offline demo), not real models.[/]"
        )
    where = f"{html} · " if html else ""
    line = f"Full report: {where}all tables: autorubric report {directory}"
    console.print(line, highlight=False, soft_wrap=True)  # one line: people copy the path
