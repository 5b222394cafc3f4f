"""The `cascade` section in the table and Markdown reports (the HTML page has its own)."""

from __future__ import annotations

from rich.table import Table

from autorubric_cli.report.formats import dollars, plural, rate
from autorubric_cli.report.models_cascade import CascadeSection

HEADER = ["stage", "judges", "votes", "calls", "cached", "error votes", "cost", "cost saved"]
ESCALATION_HEADER = [
    *("criterion", "threshold", "escalated", "graded", "escalation rate", "cost"),
    *("all-then estimate", "saved"),
]
TEXT_COLUMNS = ("stage", "judges", "criterion")


def cascade_rows(section: CascadeSection) -> list[list[str]]:
    return [
        [
            name,
            ", ".join(stage.judges),
            str(stage.votes),
            str(stage.calls),
            str(stage.cached),
            str(stage.errors),
            dollars(stage.cost),
            dollars(stage.cost_saved),
        ]
        for name, stage in (("first", section.first), ("then", section.then))
    ]


def escalation_rows(section: CascadeSection) -> list[list[str]]:
    return [
        [
            c.name,
            f"{c.escalate_below:g}",
            str(c.escalated),
            str(c.graded),
            rate(c.escalation_rate),
            dollars(c.cost),
            dollars(c.all_then_cost_estimate),
            dollars(c.saved),
        ]
        for c in section.criteria
    ]


def thresholds_text(section: CascadeSection) -> str:
    """`below agreement 0.7`, or `below each criterion's threshold` for a map."""
    below = section.escalate_below
    if isinstance(below, dict):
        return "below each criterion's threshold"
    return f"below agreement {below:g}"


def cascade_summary(section: CascadeSection) -> str:
    """One sentence: how much escalated, and the cost against an all-`then` run."""
    return (
        f"Cascade: {section.escalated} of {plural(section.graded, 'criterion grade')} escalated "
        f"({rate(section.escalation_rate)}) {thresholds_text(section)}; "
        f"cost {dollars(section.cost)}, all-then estimate "
        f"{dollars(section.all_then_cost_estimate)}, cost ratio {rate(section.cost_ratio)}."
    )


def rich_table(title: str, header: list[str], rows: list[list[str]]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in header:
        table.add_column(column, justify="left" if column in TEXT_COLUMNS else "right")
    for row in rows:
        table.add_row(*row)
    return table


def cascade_tables(section: CascadeSection | None) -> list[Table]:
    """The stages table and the escalations table; none outside a cascade."""
    if section is None:
        return []
    return [
        rich_table(cascade_summary(section), HEADER, cascade_rows(section)),
        rich_table("Escalations by criterion", ESCALATION_HEADER, escalation_rows(section)),
    ]
