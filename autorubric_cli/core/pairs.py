"""Pairwise judging's rules (docs/guides/pairwise.md): orders, replies mapped back, and how
orders, samples and judges reduce to one preference.

A preference is said from the pair's side: `A` (the pair's first system), `B` (its second) or
`tie`. A judge's reply is said from the page's side: `A` is the response shown first. Every rule
here is one pure function; grading, the report and the tests call these and nothing else.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import Field, field_validator

from autorubric_cli.core.config import GateCheck, Strict
from autorubric_cli.core.numeric import close
from autorubric_cli.core.shuffle import shuffle_order

Preference = Literal["A", "B", "tie"]
Order = Literal["AB", "BA"]
Swap = Literal["both", "random"]
PREFERENCES: tuple[Preference, ...] = ("A", "B", "tie")
SIGN: dict[Preference, int] = {"A": 1, "B": -1, "tie": 0}
VALUE: dict[Preference, float] = {"A": 1.0, "B": 0.0, "tie": 0.5}
"""A preference as an outcome for the pair's first system: a win 1, a tie 0.5, a loss 0."""
OVERALL = "overall"
"""The name of the rubric's `pairwise.overall` question among a comparison's questions."""
PANEL_RULES = ("majority", "weighted", "unanimous")
"""`grader.aggregation` values that have a meaning for pairs (`any` has none)."""


def orders_asked(swap: Swap, seed: int, unit: str, judge: str, sample: int) -> list[Order]:
    """The orders a judge is shown a pair in: both, or one drawn from (seed, unit, judge,
    sample) alone, so every criterion of a sample shares one order (and one cached prefix)."""
    if swap == "both":
        return ["AB", "BA"]
    return ["AB" if shuffle_order(seed, unit, judge, "pairwise-order", sample, 2)[0] == 0 else "BA"]


def mapped_back(reply: Preference, order: Order) -> Preference:
    """A reply (`A`: the response shown first) as a preference between the pair's systems."""
    if reply == "tie" or order == "AB":
        return reply
    return "B" if reply == "A" else "A"


def across_orders(preferences: Sequence[Preference]) -> Preference:
    """One sample's preference from its orders: the system preferred in every order shown; a
    judge that changes its preference with the order gives a tie."""
    first = preferences[0]
    return first if all(p == first for p in preferences) else "tie"


def reduce_samples(preferences: Sequence[Preference], method: str) -> Preference:
    """One judge's samples (`grader.sample_aggregation`): `majority` the most frequent reply,
    `mean` the sign of the mean (A +1, tie 0, B -1), `median` the sign of the median (an even
    count: of the two middle values' mean). A tie whenever they split evenly."""
    if method == "majority":
        return most_frequent(Counter(preferences))
    signs = sorted(SIGN[p] for p in preferences)
    if method == "mean":
        return signed(sum(signs) / len(signs))
    middle = len(signs) // 2
    return signed(signs[middle] if len(signs) % 2 else (signs[middle - 1] + signs[middle]) / 2)


def reduce_panel(
    preferences: Sequence[Preference], weights: Sequence[float], method: str
) -> Preference:
    """The judges' preferences, one per judge (`grader.aggregation`): `majority` the most
    frequent, `weighted` the most judge weight, `unanimous` the one every judge gives; a tie
    when they split evenly or disagree."""
    if method == "unanimous":
        return preferences[0] if len(set(preferences)) == 1 else "tie"
    tally: dict[Preference, float] = {}
    for preference, weight in zip(preferences, weights, strict=True):
        tally[preference] = tally.get(preference, 0.0) + (weight if method == "weighted" else 1.0)
    return most_frequent(tally)


def most_frequent(tally: Mapping[Preference, float]) -> Preference:
    """The preference with the most votes; a tie when two share the most (within 1e-9)."""
    ranked = sorted(tally.items(), key=lambda kv: -kv[1])
    if len(ranked) > 1 and close(ranked[0][1], ranked[1][1]):
        return "tie"
    return ranked[0][0]


def signed(value: float) -> Preference:
    if close(value, 0.0):
        return "tie"
    return "A" if value > 0 else "B"


def rubric_preference(
    preferences: Sequence[Preference | None], weights: Sequence[float]
) -> Preference | None:
    """An item's preference over the rubric's criteria: the sign of Σ |w|·(A +1, tie 0, B -1)
    over the criteria with a preference (a criterion's preference already means "better on
    it", penalty criteria included); None when no criterion has one."""
    decided = [(p, abs(w)) for p, w in zip(preferences, weights, strict=True) if p is not None]
    if not decided:
        return None
    return signed(sum(SIGN[p] * w for p, w in decided))


def flipped(preference: Preference) -> Preference:
    """The same preference said from the other system's side."""
    return "tie" if preference == "tie" else "B" if preference == "A" else "A"


GATE_PREFIX = "pairwise."


class PairwiseSection(Strict):
    """The rubric's `pairwise:` key (docs/reference/rubric-file.md): what `autorubric pairwise`
    asks beside the criteria, and its gate."""

    overall: str | None = Field(None, min_length=1)
    gate: list[GateCheck] = Field(default_factory=list)

    @field_validator("overall")
    @classmethod
    def _not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("the overall question must not be blank")
        return value

    @field_validator("gate")
    @classmethod
    def _pairwise_paths(cls, checks: list[GateCheck]) -> list[GateCheck]:
        for check in checks:
            if not check.metric.startswith(GATE_PREFIX):
                raise ValueError(
                    f"metric {check.metric!r}: a pairwise gate checks the pairwise report "
                    f"(`{GATE_PREFIX}<A>_vs_<B>.win_rate`, `{GATE_PREFIX}leaderboard.<name>.elo`);"
                    " gate checks on a run's report go under the top-level `gate:`"
                )
        return checks
