"""Warnings about the validation itself: too few ratings, an underspecified task, thin judges."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from autorubric_cli.core.words import plural
from autorubric_cli.validate.space import Rating

MIN_RATINGS = 3
SPLIT_SHARE = 0.2
"""Forced-choice-only ratings split on at least this share of items: several options plausible."""


def few_ratings(criterion: str, counts: Sequence[int]) -> str | None:
    """Items with fewer than 3 human ratings."""
    short = sum(1 for c in counts if c < MIN_RATINGS)
    if not short:
        return None
    return (
        f"{criterion}: {short} of {plural(len(counts), 'item')} have fewer than {MIN_RATINGS} "
        f"human ratings (min {min(counts)}); Guerdan et al. find 3 ratings per item worth more "
        "than any choice of metric: collect more ratings before trusting a judge ranking"
    )


def split_share(human: Sequence[Sequence[Rating]]) -> float | None:
    """Share of items (with 2+ forced choices) where raters chose more than one option."""
    choices = [{r.choice for r in ratings if r.choice is not None} for ratings in human]
    counted = [
        len(chosen) > 1
        for chosen, ratings in zip(choices, human, strict=True)
        if sum(r.choice is not None for r in ratings) >= 2
    ]
    return float(np.mean(counted)) if counted else None


def forced_choice_only(human: Sequence[Sequence[Rating]]) -> bool:
    return all(r.members is None for ratings in human for r in ratings)


def underspecified(
    criterion: str, human: Sequence[Sequence[Rating]], model: Mapping[str, Any]
) -> str | None:
    """Forced choice only, and raters split often: several options look plausible."""
    share = split_share(human)
    if not forced_choice_only(human) or share is None or share < SPLIT_SHARE:
        return None
    return (
        f"{criterion}: forced-choice ratings only, and raters split on {share:.0%} of items: "
        "the task looks underspecified (several options plausible). Response-set figures rest "
        f"on the forced-choice -> response-set model ({model_text(model)}); collect response "
        "sets (a list of every reasonable label per rater) or study --beta-sweep"
    )


def model_text(model: Mapping[str, Any]) -> str:
    if model["kind"] == "beta":
        k, chosen = model["pair"]
        return f"beta = {model['beta']:g}: P({k} in set | chose {chosen})"
    if model["kind"] == "matrix":
        return "user matrix"
    return "beta = 0: the forced choice is the set"


def thin_judges(
    criterion: str, judges: Mapping[str, Sequence[Sequence[Rating]]], ensemble: str
) -> list[str]:
    """Judges with no usable vote, or a single sample per item (a one-hot distribution)."""
    found = []
    for judge, per_item in judges.items():
        counts = [len(r) for r in per_item if r]
        if not counts:
            found.append(f"{criterion}: judge {judge!r} has no usable vote on a rated item")
        elif judge != ensemble and max(counts) == 1:
            found.append(
                f"{criterion}: judge {judge!r} has one sample per item, so its rating "
                "distribution is one-hot; set `samples: 5` or more for the distributional "
                "and response-set definitions"
            )
    return found


def inversion_text(criterion: str, groups: Mapping[str, Sequence[str]]) -> str | None:
    """One line: which definitions select which judge, when they do not all agree."""
    if len(groups) < 2:
        return None
    parts = "; ".join(f"{judge} by {', '.join(metrics)}" for judge, metrics in groups.items())
    return f"{criterion}: rank inversion: definitions select different best judges: {parts}"
