"""The pairwise report as text: the terminal tables, Markdown and CSV, from the one model.

The tables and Markdown show the same sections (`sections`), each a title, headers and rows
of cells written with report/formats.py's words; CSV is the report's numbers as data, one row per
figure, named by its path in the JSON (the path a gate checks).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rich.console import Console

from autorubric_cli.core.json_model import to_json_dict
from autorubric_cli.pairwise.models import PairSummary, PairwiseReport, WinRateBlock
from autorubric_cli.report.fit import build_table, print_fitted
from autorubric_cli.report.formats import (
    SIMULATED_NOTE,
    dollars,
    exact,
    gate_word,
    interval,
    number,
    p_value,
)
from autorubric_cli.report.render_text import _md_table

TALLY_HEADERS = ["n", "wins", "ties", "losses", "win rate", "95% CI"]
TIES_NOTE = (
    "win rate: the first system's, ties counting half; a judge that changes its preference "
    "with the order gives a tie"
)


@dataclass(frozen=True)
class Section:
    title: str
    headers: list[str]
    rows: list[list[str]]
    names: int = 1
    note: str | None = None


def tally_cells(block: WinRateBlock | PairSummary) -> list[str]:
    return [
        number(block.n),
        number(block.wins),
        number(block.ties),
        number(block.losses),
        number(block.win_rate),
        interval(block.ci95),
    ]


def pairs_section(report: PairwiseReport) -> Section:
    rows = [
        [p.key, p.decided_by, *tally_cells(p), number(p.length_controlled.win_rate)]
        for p in report.pairwise.pairs
    ]
    reasons: dict[str, list[str]] = {}
    for p in report.pairwise.pairs:
        if p.length_controlled.reason:
            reasons.setdefault(p.length_controlled.reason, []).append(p.key)
    why = [f"{reason} ({', '.join(keys)})" for reason, keys in reasons.items()]
    note = TIES_NOTE + ("; length-controlled n/a: " + "; ".join(why) if why else "")
    headers = ["pair", "decided by", *TALLY_HEADERS, "length-controlled"]
    return Section("Pairs", headers, rows, note=note)


def questions_section(report: PairwiseReport) -> Section:
    rows = []
    for p in report.pairwise.pairs:
        blocks = [*p.criteria.items(), ("(rubric)", p.rubric)]
        if p.overall is not None:
            blocks.append(("overall", p.overall))
        rows += [[p.key, name, *tally_cells(block)] for name, block in blocks]
    note = "(rubric): per item, the criteria's preferences weighted by |weight|"
    return Section("Per question", ["pair", "question", *TALLY_HEADERS], rows, names=2, note=note)


def leaderboard_section(report: PairwiseReport) -> Section | None:
    board = report.pairwise.leaderboard
    if board is None:
        return None
    rows = [
        [name, number(r.rank), number(r.elo, 1), elo_interval(r.ci95)] for name, r in board.items()
    ]
    note = (
        "Bradley–Terry (ties as half a win each way), Elo scale: 1000 + 400·log10(e)·(β − mean β)"
    )
    if report.leaderboard_note:
        note += f"; {report.leaderboard_note}"
    return Section("Leaderboard", ["system", "rank", "Elo", "95% CI"], rows, note=note)


def elo_interval(ci: list[float] | None) -> str:
    return interval(None) if ci is None else f"[{number(ci[0], 1)}, {number(ci[1], 1)}]"


def judges_section(report: PairwiseReport) -> Section:
    rows = [
        [
            j.id,
            number(j.replies),
            number(j.errors),
            number(j.order_consistency),
            number(j.order_pairs),
            number(j.first_position_rate),
            p_value(j.first_position_p_value),
            dollars(j.cost),
        ]
        for j in report.judges
    ]
    headers = ["judge", "replies", "errors", "order-consistent", "of", "first shown", "p", "cost"]
    note = (
        "order-consistent: samples shown in both orders that preferred the same; first shown: "
        "of the replies preferring one, the share preferring the response shown first (0.5 "
        "without position bias), p: exact binomial test against 0.5"
    )
    return Section("Judges", headers, rows, note=note)


def sections(report: PairwiseReport) -> list[Section]:
    board = leaderboard_section(report)
    found = [pairs_section(report), questions_section(report)]
    return [*found, *([board] if board else []), judges_section(report)]


def headline(report: PairwiseReport) -> str:
    counts = report.comparisons
    systems = ", ".join(s.name for s in report.systems)
    return (
        f"{report.experiment} · {report.status} · {systems} · comparisons "
        f"{number(counts.completed)}/{number(counts.total)}, errored {number(counts.errored)} "
        f"· swap {report.swap}"
    )


def footer(report: PairwiseReport, gate: bool = True) -> list[str]:
    """The cost line, the gate (`gate`: unless the page shows its table) and the warnings."""
    lines = [f"cost {dollars(report.cost)} · saved by the call cache {dollars(report.cost_saved)}"]
    if report.pairwise.leaderboard is None and report.leaderboard_note:
        lines.append(f"leaderboard: n/a ({report.leaderboard_note})")
    if report.gate is not None and gate:
        checks = "; ".join(
            f"{c.metric} {number(c.value)} {gate_word(c.passed)}" for c in report.gate.checks
        )
        lines.append(f"gate {gate_word(report.gate.passed)}: {checks}")
    return lines + [f"warning: {w}" for w in report.warnings]


def render_pairwise_tables(report: PairwiseReport, console: Console) -> None:
    console.print(headline(report), highlight=False, soft_wrap=True)
    if report.simulated:
        console.print(f"[bold yellow]{SIMULATED_NOTE}[/]")
    for section in sections(report):
        table = build_table(section.title, section.headers, section.rows, names=section.names)
        if section.note:
            table.caption = section.note
        print_fitted(console, table, names=section.names)
    for line in footer(report):
        console.print(line, highlight=False, markup=False, soft_wrap=True)


def render_pairwise_markdown(report: PairwiseReport) -> str:
    lines = [f"## autorubric pairwise · {headline(report)}", ""]
    if report.simulated:
        lines += [f"> {SIMULATED_NOTE}", ""]
    for section in sections(report):
        lines += [f"### {section.title}", "", *_md_table(section.headers, section.rows), ""]
        if section.note:
            lines += [section.note, ""]
    return "\n".join([*lines, *footer(report)]) + "\n"


def numbers(node: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every number under a JSON node, with its dotted path (an interval's ends as `.low` and
    `.high`)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from numbers(value, f"{path}.{key}" if path else key)
    elif isinstance(node, list) and path.endswith("ci95"):
        for end, value in zip(("low", "high"), node, strict=False):
            yield f"{path}.{end}", value
    elif isinstance(node, int | float) and not isinstance(node, bool):
        yield path, node


def render_pairwise_csv(report: PairwiseReport) -> str:
    """`metric,value`: every number of the `pairwise` section and of each judge's figures."""
    data = to_json_dict(report)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["metric", "value"])
    rows = list(numbers(data["pairwise"], "pairwise"))
    for judge in data["judges"]:
        figures = {k: v for k, v in judge.items() if k not in ("id", "usage")}
        rows += numbers(figures, f"judges.{judge['id']}")
    for metric, value in rows:
        writer.writerow([metric, exact(value) if isinstance(value, float) else value])
    return out.getvalue()
