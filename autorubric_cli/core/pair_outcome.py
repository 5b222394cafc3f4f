"""A question's outcome on one comparison, from its votes (docs/guides/pairwise.md, "Ties"): the
one reduction grading records and the report recounts.

1. A sample's preference: `pairs.across_orders` of its votes in every order asked. A sample with
   an errored (or missing) order is set aside: a judge's consistency cannot be read from half
   of it.
2. A judge's preference: its samples reduced by `grader.sample_aggregation`
   (`pairs.reduce_samples`).
3. The outcome: the judges' preferences reduced by `grader.aggregation` (`pairs.reduce_panel`,
   judge weights for `weighted`); null when no judge has one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from autorubric_cli.core.pair_records import PairVote, Winner
from autorubric_cli.core.pairs import (
    Order,
    Preference,
    across_orders,
    reduce_panel,
    reduce_samples,
)


@dataclass(frozen=True)
class PairRules:
    """How votes reduce: the pair's systems, the orders each sample is asked in (`both`: two),
    and the rubric's sample and panel aggregation with the judges' weights."""

    a: str
    b: str
    orders_per_sample: int
    sample_method: str
    panel_method: str
    weights: Mapping[str, float]

    def preference(self, winner: Winner) -> Preference:
        return "tie" if winner == "tie" else "A" if winner == self.a else "B"

    def winner(self, preference: Preference) -> Winner:
        return "tie" if preference == "tie" else self.a if preference == "A" else self.b


def sample_preferences(
    votes: Sequence[PairVote], rules: PairRules
) -> dict[tuple[str, int], Preference]:
    """(judge, sample) -> the sample's preference across its orders, for complete samples."""
    by_sample: dict[tuple[str, int], dict[Order, Preference | None]] = {}
    for vote in votes:
        preference = None if vote.preferred is None else rules.preference(vote.preferred)
        by_sample.setdefault((vote.judge, vote.sample), {})[vote.order] = preference
    found: dict[tuple[str, int], Preference] = {}
    for key, orders in by_sample.items():
        shown = [p for p in orders.values() if p is not None]
        if len(shown) == rules.orders_per_sample:
            found[key] = across_orders(shown)
    return found


def judge_preferences(votes: Sequence[PairVote], rules: PairRules) -> dict[str, Preference]:
    """judge -> its preference over its complete samples, in the order judges first voted."""
    samples: dict[str, list[Preference]] = {}
    for (judge, _), preference in sample_preferences(votes, rules).items():
        samples.setdefault(judge, []).append(preference)
    return {j: reduce_samples(p, rules.sample_method) for j, p in samples.items()}


def question_outcome(votes: Sequence[PairVote], rules: PairRules) -> Winner | None:
    """The question's outcome on this comparison: a system's name, `tie`, or None."""
    judges = judge_preferences(votes, rules)
    if not judges:
        return None
    weights = [rules.weights.get(j, 1.0) for j in judges]
    return rules.winner(reduce_panel(list(judges.values()), weights, rules.panel_method))
