"""The pairwise gate's metric paths (docs/guides/pairwise.md, "Gates"): every number a pairwise
report of these systems and this rubric holds, so a check that names none of them is refused
before any call, with a "did you mean".
"""

from __future__ import annotations

import difflib
import itertools

from autorubric_cli.core.pairs import GATE_PREFIX, OVERALL
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.pairwise.models import LengthControlled, Rating, WinRateBlock

TALLY = [
    name
    for name, info in WinRateBlock.model_fields.items()
    if info.annotation in (int, float | None)
]
"""A tally's numbers: n, wins, ties, losses, win_rate."""
LEADERBOARD_FIGURES = [n for n, f in Rating.model_fields.items() if f.annotation in (int, float)]
LENGTH_FIGURES = [
    n for n, f in LengthControlled.model_fields.items() if f.annotation == float | None
]


def gate_metrics(rubric: Rubric, systems: list[str]) -> list[str]:
    """Every number a gate may check, for these systems (in order) and this rubric."""
    blocks = [""] + ["rubric."] + [f"criteria.{c.name}." for c in rubric.criteria]
    if rubric.pairwise is not None and rubric.pairwise.overall is not None:
        blocks.append(f"{OVERALL}.")
    paths = []
    for a, b in itertools.combinations(systems, 2):
        pair = f"{GATE_PREFIX}{a}_vs_{b}."
        paths += [pair + block + figure for block in blocks for figure in TALLY]
        paths += [f"{pair}length_controlled.{figure}" for figure in LENGTH_FIGURES]
    if len(systems) >= 3:
        board = f"{GATE_PREFIX}leaderboard."
        paths += [f"{board}{name}.{figure}" for name in systems for figure in LEADERBOARD_FIGURES]
    return paths


def gate_problem(metric: str, rubric: Rubric, systems: list[str]) -> str | None:
    """Why `metric` names no number of the report, or None."""
    known = gate_metrics(rubric, systems)
    if metric in known:
        return None
    if metric.startswith(f"{GATE_PREFIX}leaderboard.") and len(systems) < 3:
        return f"unknown metric {metric!r}: a leaderboard needs three or more systems"
    close = difflib.get_close_matches(metric, known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else f"; for example {known[4]!r}"
    return f"unknown metric {metric!r} for these systems and this rubric{hint}"
