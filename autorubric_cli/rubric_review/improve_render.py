"""`improve` in every format from one `ImproveResult`: the rows built once (`tables`), written
as a terminal table or Markdown; JSON is the model itself."""

from __future__ import annotations

from rich.console import Console

from autorubric_cli.report.formats import (
    ARROW,
    SIMULATED_NOTE,
    dollars,
    number,
    p_value,
    plural,
    rate,
)
from autorubric_cli.rubric_review.improve_models import ImproveResult
from autorubric_cli.rubric_review.render import Table, markdown_page, show_tables

NOTE = (
    "held out: the test items were never shown to the reviser nor used to keep a candidate; "
    "p is McNemar's exact test of the paired difference (per criterion, not corrected for "
    "several criteria)"
)


def headline(result: ImproveResult) -> str:
    changed = [c for c in result.criteria if c.changed]
    return (
        f"{len(changed)} of {plural(len(result.criteria), 'criterion', 'criteria')} reworded in "
        f"{plural(result.rounds, 'round')}; train {plural(result.train.items, 'item')}, test "
        f"{plural(result.test.items, 'item')}"
    )


def tables(result: ImproveResult) -> list[Table]:
    held = [
        [
            c.name,
            "yes" if c.changed else "no",
            number(c.n),
            f"{rate(c.original.accuracy)} {ARROW} {rate(c.final.accuracy)}",
            f"{number(c.original.kappa)} {ARROW} {number(c.final.kappa)}",
            p_value(c.p_value),
        ]
        for c in result.criteria
    ]
    rounds = [
        [
            str(a.round),
            a.criterion,
            rate(a.before),
            rate(a.candidate),
            "kept" if a.kept else "not kept",
            a.requirement or "-",
        ]
        for a in result.attempts
    ]
    held_header = ["criterion", "reworded", "n", "accuracy", "kappa", "p (McNemar)"]
    round_header = ["round", "criterion", "train before", "candidate", "decision", "requirement"]
    return [("Held-out test", held_header, held), ("Rounds (train part)", round_header, rounds)]


def notes(result: ImproveResult) -> list[str]:
    lines = [SIMULATED_NOTE] if result.simulated else []
    lines += [NOTE, f"wrote {result.improved} and {result.diff}"]
    lines.append(f"cost {dollars(result.cost)} · results in {result.directory}")
    return lines


def render_improve_table(result: ImproveResult, console: Console) -> None:
    heading = f"[bold]{result.rubric}[/]: {headline(result)}"
    show_tables(console, heading, tables(result), notes(result))


def render_improve_markdown(result: ImproveResult) -> str:
    title = f"Improving `{result.rubric}`"
    return markdown_page(title, headline(result), tables(result), notes(result))
