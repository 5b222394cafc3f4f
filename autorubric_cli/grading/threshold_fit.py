"""One threshold per criterion (`cascade calibrate --per-criterion`, docs/guides/cascades.md).

The fit is greedy, by cost saved per point of agreement lost. Each criterion's candidate
thresholds are the calibration grid and its own distinct agreements, each replayed through
`core.cascade.escalates` (through `replayed_outcome`), so a fitted set replays exactly as a live
run with it escalates. A criterion's outcomes do not depend on another's threshold, so the
overall agreement and cost are sums over criteria:

1. start from every criterion at the threshold that agrees most with the goal (the `then`
   outcome, or the label with `against="labels"`); ties: the cheaper, then the lower threshold;
2. while some criterion can move to a cheaper threshold and keep the overall agreement at the
   target, take the move that saves the most per point of agreement it loses (a move that loses
   none comes first);
3. do the same from the best single threshold for every criterion, and keep the cheaper end
   (so the set is never dearer than the best single threshold).

"Cost" is the `then` stage's recorded cost of the pairs escalated (the first stage is paid
whatever the threshold); with unpriced or free judges it is the number of escalations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from autorubric_cli.core.json_model import Block
from autorubric_cli.grading.calibrate import (
    Pair,
    cost_parts,
    replayed_outcome,
    share,
    thresholds,
    total_cost,
)

Against = Literal["then", "labels"]
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Option:
    """One candidate threshold of one criterion: the pairs that then agree with the goal, the
    cost measure, and the escalations."""

    threshold: float
    hits: int
    cost: float
    escalations: int


def goal_of(against: Against) -> Callable[[Pair], str | None]:
    """What a replayed outcome is compared with: the `then` outcome, or the pair's label."""
    if against == "labels":
        return lambda pair: pair.truth
    return lambda pair: pair.then_outcome


def options(
    pairs: Sequence[Pair],
    goal: Callable[[Pair], str | None],
    priced: bool,
    candidates: Sequence[float],
) -> list[Option]:
    """A criterion's options, one per distinct result (the lowest candidate giving it; the
    escalated pairs grow with the threshold, so a result is one escalation count)."""
    found: dict[int, Option] = {}
    for threshold in candidates:
        replayed = [(p, *replayed_outcome(p, threshold)) for p in pairs]
        escalated = [p for p, up, _ in replayed if up]
        hits = sum(outcome == goal(p) for p, _, outcome in replayed if goal(p) is not None)
        cost = sum(p.then_cost or 0.0 for p in escalated) if priced else float(len(escalated))
        option = Option(threshold, hits, cost, len(escalated))
        found.setdefault(len(escalated), option)
    return list(found.values())


def best_move(
    choices: list[list[Option]], chosen: list[Option], slack: float
) -> tuple[int, Option] | None:
    """The cheaper option that saves most per hit lost and keeps `slack` (hits above the
    target) non-negative; None when no move is left."""
    best: tuple[tuple[float, float, int], int, Option] | None = None
    for index, (candidates, current) in enumerate(zip(choices, chosen, strict=True)):
        for option in candidates:
            saved, lost = current.cost - option.cost, current.hits - option.hits
            if saved <= TOLERANCE or lost > slack + TOLERANCE:
                continue
            rank = (saved / lost if lost > 0 else float("inf"), saved, -index)
            if best is None or rank > best[0]:
                best = (rank, index, option)
    return None if best is None else (best[1], best[2])


def descend(choices: list[list[Option]], start: list[Option], needed: float) -> list[Option]:
    chosen = list(start)
    while (move := best_move(choices, chosen, sum(o.hits for o in chosen) - needed)) is not None:
        chosen[move[0]] = move[1]
    return chosen


def fit_per_criterion(
    pairs: Sequence[Pair],
    names: Sequence[str],
    target: float,
    against: Against,
    single: float | None,
) -> dict[str, float] | None:
    """One threshold per criterion name reaching `target` agreement with the goal, as cheap as
    the greedy descent finds; None when even the most agreeing set falls short. `single`: the
    best single threshold (None when none reaches the target), a second starting point."""
    goal = goal_of(against)
    scored = sum(goal(p) is not None for p in pairs)
    needed = (target - TOLERANCE) * scored
    priced = all(p.then_cost is not None for p in pairs) and any(p.then_cost for p in pairs)
    by_criterion = [[p for p in pairs if p.criterion == i] for i in range(len(names))]
    candidates = thresholds(pairs)
    choices = [options(mine, goal, priced, candidates) for mine in by_criterion]
    top = [max(c, key=lambda o: (o.hits, -o.cost, -o.threshold)) for c in choices]
    if not scored or sum(o.hits for o in top) < needed:
        return None
    ends = [descend(choices, top, needed)]
    if single is not None:
        at_single = [
            at_threshold(c, mine, single) for c, mine in zip(choices, by_criterion, strict=True)
        ]
        ends.append(descend(choices, at_single, needed))
    chosen = min(ends, key=lambda end: (sum(o.cost for o in end), -sum(o.hits for o in end)))
    return {name: option.threshold for name, option in zip(names, chosen, strict=True)}


def at_threshold(candidates: list[Option], pairs: Sequence[Pair], threshold: float) -> Option:
    """The option whose result is the one `threshold` (a candidate) gives on these pairs."""
    escalations = sum(replayed_outcome(p, threshold)[0] for p in pairs)
    return next(o for o in candidates if o.escalations == escalations)


class CriterionFit(Block):
    """One criterion under a fitted set: its threshold, what it escalates, how it agrees, and
    its cost against asking the `then` judges about every one of its pairs."""

    name: str
    threshold: float
    escalation_rate: float | None
    agreement_with_then: float | None
    agreement_with_labels: float | None
    cost: float | None  # USD, both stages; null when a judge is unpriced
    all_then_cost: float | None  # the `then` judges on every pair of this criterion
    saved: float | None  # all_then_cost - cost


def criterion_fits(pairs: Sequence[Pair], fitted: dict[str, float]) -> list[CriterionFit]:
    rows = []
    for index, (name, threshold) in enumerate(fitted.items()):
        mine = [p for p in pairs if p.criterion == index]
        replayed = [(p, *replayed_outcome(p, threshold)) for p in mine]
        labelled = [(p, outcome) for p, _, outcome in replayed if p.truth is not None]
        cost = total_cost(c for p, up, _ in replayed for c in cost_parts(p, up))
        all_then = total_cost(p.then_cost for p in mine)
        rows.append(
            CriterionFit(
                name=name,
                threshold=threshold,
                escalation_rate=share(sum(up for _, up, _ in replayed), len(mine)),
                agreement_with_then=share(
                    sum(outcome == p.then_outcome for p, _, outcome in replayed), len(mine)
                ),
                agreement_with_labels=share(sum(o == p.truth for p, o in labelled), len(labelled)),
                cost=cost,
                all_then_cost=all_then,
                saved=None if cost is None or all_then is None else all_then - cost,
            )
        )
    return rows
