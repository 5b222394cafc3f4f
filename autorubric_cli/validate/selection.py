"""Which judge each definition selects, how definitions rank judges, and where they disagree.

Best: the judge with the best value of a ranked definition (direction-aware); values within
1e-9 of the best tie, and ``best`` names the first tied judge in judge order (the rubric's
judges, then the ensemble). Rank correlation: Kendall's tau-b between two definitions' values
across judges, each oriented so that higher is better. A rank inversion is a pair of
definitions whose sets of best judges do not overlap.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from autorubric_cli.metrics.correlation import kendall_tau_b
from autorubric_cli.metrics.figures import Figure, Undefined, value_or_none
from autorubric_cli.validate.performance import RANKED, goodness

TIE = 1e-9
JudgeFigures = Mapping[str, Mapping[str, Figure]]
"""judge id -> metric -> figure."""


def oriented(figures: JudgeFigures, metric: str, judges: Sequence[str]) -> np.ndarray:
    """Per judge, the metric mapped so that higher is better; NaN where undefined."""
    turn = goodness(metric)
    values = [figures[j][metric] for j in judges]
    return np.array([np.nan if isinstance(v, Undefined) else turn(v) for v in values])


def best_judges(figures: JudgeFigures, metric: str, judges: Sequence[str]) -> list[str]:
    """Every judge within 1e-9 of the best value, in judge order; empty when none is defined."""
    scores = oriented(figures, metric, judges)
    if np.all(np.isnan(scores)):
        return []
    top = float(np.nanmax(scores))
    return [j for j, s in zip(judges, scores, strict=True) if not math.isnan(s) and s >= top - TIE]


def best_by_metric(figures: JudgeFigures, judges: Sequence[str]) -> dict[str, list[str]]:
    """metric -> tied best judges, for every ranked definition."""
    return {metric: best_judges(figures, metric, judges) for metric in RANKED}


def first_best(best: Mapping[str, list[str]]) -> dict[str, str | None]:
    """metric -> the first best judge (None when the metric is undefined for every judge)."""
    return {metric: (chosen[0] if chosen else None) for metric, chosen in best.items()}


def rank_correlations(figures: JudgeFigures, judges: Sequence[str]) -> dict[str, float | None]:
    """'a|b' -> Kendall's tau-b across judges (None with < 2 judges or a constant side)."""
    oriented_values = {metric: oriented(figures, metric, judges) for metric in RANKED}
    return {
        f"{a}|{b}": value_or_none(kendall_tau_b(oriented_values[a], oriented_values[b]))
        for a, b in combinations(RANKED, 2)
    }


def rank_inversions(best: Mapping[str, list[str]]) -> list[dict[str, Any]]:
    """Pairs of definitions whose best judges differ (no judge is best under both)."""
    inversions = []
    for a, b in combinations(RANKED, 2):
        if best[a] and best[b] and not set(best[a]) & set(best[b]):
            inversions.append({"a": a, "b": b, "a_best": best[a], "b_best": best[b]})
    return inversions


def selection_groups(best: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """first best judge -> the definitions that select it (for the inversion warning)."""
    groups: dict[str, list[str]] = {}
    for metric, chosen in best.items():
        if chosen:
            groups.setdefault(chosen[0], []).append(metric)
    return groups
