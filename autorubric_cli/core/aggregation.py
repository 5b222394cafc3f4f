"""Ensemble aggregation and sample reduction (docs/guides/rubrics.md). Pure functions on votes.

A ballot is `(choice, judge_weight)`; `choice` is a `CriterionVerdict` for binary criteria and
an original option index for multi-choice ones. Abstentions and errors are removed by the caller
(`valid_ballots`) before these rules run.
"""

from __future__ import annotations

import statistics
import warnings
from collections.abc import Sequence

from autorubric_cli.core.numeric import close
from autorubric_cli.core.records import CriterionVerdict
from autorubric_cli.core.rubric import CriterionOption

MET, UNMET = CriterionVerdict.MET, CriterionVerdict.UNMET


def worst_verdict(weight: float) -> CriterionVerdict:
    """UNMET lowers the score of a positive criterion; MET lowers it for a penalty."""
    return UNMET if weight >= 0 else MET


def worst_option(
    candidates: Sequence[int], options: Sequence[CriterionOption], weight: float
) -> int:
    """Among candidate option indices, the one giving the lowest score; ties: lowest index."""
    values = {i: _value(options, i) for i in candidates}
    target = min(values.values()) if weight >= 0 else max(values.values())
    return min(i for i in candidates if close(values[i], target))


def aggregate_binary(
    ballots: Sequence[tuple[CriterionVerdict, float]], method: str, weight: float
) -> CriterionVerdict:
    if not ballots:
        return CriterionVerdict.CANNOT_ASSESS
    if method == "unanimous":
        return MET if all(v == MET for v, _ in ballots) else UNMET
    if method == "any":
        return MET if any(v == MET for v, _ in ballots) else UNMET
    use_weights = method == "weighted"
    met = sum((w if use_weights else 1.0) for v, w in ballots if v == MET)
    unmet = sum((w if use_weights else 1.0) for v, w in ballots if v == UNMET)
    if close(met, unmet):
        return worst_verdict(weight)
    return MET if met > unmet else UNMET


def _value(options: Sequence[CriterionOption], index: int) -> float:
    value = options[index].value
    if value is None:
        raise ValueError(f"option {index} is NA and has no value")
    return value


def _tallies(ballots: Sequence[tuple[int, float]], weighted: bool) -> dict[int, float]:
    tally: dict[int, float] = {}
    for index, w in ballots:
        tally[index] = tally.get(index, 0.0) + (w if weighted else 1.0)
    return tally


def _mode(
    ballots: Sequence[tuple[int, float]],
    options: Sequence[CriterionOption],
    weight: float,
    weighted: bool,
) -> int:
    tally = _tallies(ballots, weighted)
    best = max(tally.values())
    leaders = [i for i, t in tally.items() if close(t, best)]
    return worst_option(leaders, options, weight)


def snap_to_option(value: float, options: Sequence[CriterionOption], weight: float) -> int:
    """Nearest non-NA option by value; ties go to the worst."""
    scored = [i for i, o in enumerate(options) if not o.na]
    best = min(abs(_value(options, i) - value) for i in scored)
    nearest = [i for i in scored if close(abs(_value(options, i) - value), best)]
    return worst_option(nearest, options, weight)


def ordinal_center(
    ballots: Sequence[tuple[int, float]], options: Sequence[CriterionOption], method: str
) -> float:
    """The unsnapped value for mean / median / weighted_mean."""
    values = [_value(options, i) for i, _ in ballots]
    if method == "mean":
        return sum(values) / len(values)
    if method == "median":
        return float(statistics.median(values))
    total = sum(w for _, w in ballots)
    return sum(v * w for v, (_, w) in zip(values, ballots, strict=True)) / total


def aggregate_ordinal(
    ballots: Sequence[tuple[int, float]],
    options: Sequence[CriterionOption],
    method: str,
    weight: float,
) -> tuple[int | None, float | None]:
    """Returns (option index, aggregated_value); (None, None) when every judge abstained."""
    if not ballots:
        return None, None
    if method in ("mean", "median", "weighted_mean"):
        center = ordinal_center(ballots, options, method)
        return snap_to_option(center, options, weight), center
    if method == "mode":
        index = _mode(ballots, options, weight, weighted=False)
    elif method in ("min", "max"):
        values = [_value(options, i) for i, _ in ballots]
        target = min(values) if method == "min" else max(values)
        index = min(i for i, _ in ballots if close(_value(options, i), target))
    else:
        raise ValueError(f"unknown ordinal aggregation {method!r}")
    return index, _value(options, index)


def aggregate_nominal(
    ballots: Sequence[tuple[int, float]],
    options: Sequence[CriterionOption],
    method: str,
    weight: float,
) -> int | None:
    if not ballots:
        return None
    if method == "unanimous":
        chosen = {i for i, _ in ballots}
        if len(chosen) == 1:
            return chosen.pop()
        na = next((i for i, o in enumerate(options) if o.na), None)
        if na is not None:
            return na
        warnings.warn(
            "nominal `unanimous` without an NA option: judges disagree, falling back to `mode`",
            stacklevel=2,
        )
        return _mode(ballots, options, weight, weighted=False)
    if method in ("mode", "weighted_mode"):
        return _mode(ballots, options, weight, weighted=method == "weighted_mode")
    raise ValueError(f"unknown nominal aggregation {method!r}")


def reduce_samples(values: Sequence[float], method: str) -> int:
    """Index of the sample kept from one judge's repeated samples (a real sample,
    docs/guides/rubrics.md)."""
    if not values:
        raise ValueError("no samples to reduce")
    if method == "mean":
        mean = sum(values) / len(values)
        distances = [abs(v - mean) for v in values]
        best = min(distances)
        return next(i for i, d in enumerate(distances) if close(d, best))
    if method == "median":
        order = sorted(range(len(values)), key=lambda i: (values[i], i))
        return order[len(values) // 2]
    if method == "majority":
        counts: dict[int, int] = {}
        for i, v in enumerate(values):
            first = next(j for j in range(i + 1) if close(values[j], v))
            counts[first] = counts.get(first, 0) + 1
        top = max(counts.values())
        leaders = [i for i, c in counts.items() if c == top]
        if len(leaders) == 1:
            return leaders[0]
        tied = [i for i, v in enumerate(values) if any(close(values[j], v) for j in leaders)]
        return tied[reduce_samples([values[i] for i in tied], "median")]
    raise ValueError(f"unknown sample aggregation {method!r}")
