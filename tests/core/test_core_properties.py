"""Hypothesis properties of scoring and aggregation (docs/guides/rubrics.md)."""

from __future__ import annotations

import warnings

from hypothesis import given
from hypothesis import strategies as st

from autorubric_cli.core.aggregation import (
    aggregate_binary,
    aggregate_nominal,
    aggregate_ordinal,
    reduce_samples,
)
from autorubric_cli.core.config import CannotAssessConfig, LengthPenalty
from autorubric_cli.core.records import CriterionVerdict
from autorubric_cli.core.rubric import CriterionOption
from autorubric_cli.core.scoring import length_penalty_amount, score_item

MET, UNMET = CriterionVerdict.MET, CriterionVerdict.UNMET
EPS = 1e-9

BINARY = ["majority", "weighted", "unanimous", "any"]
ORDINAL = ["mean", "median", "weighted_mean", "mode", "min", "max"]
NOMINAL = ["mode", "weighted_mode", "unanimous"]
CENTERED = ["mean", "median", "weighted_mean"]

weights = st.floats(-1e6, 1e6, allow_nan=False).filter(lambda w: abs(w) > 1e-6)
signs = st.sampled_from([1.0, -1.0])
# judge weights and option values on exact grids, so that reordering a sum cannot move it
# across the 1e-9 equality threshold
judge_weights = st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0, 3.0])
grid_values = st.integers(0, 20).map(lambda k: k / 20)
any_values = st.floats(0.0, 1.0, allow_nan=False)
strategies = st.builds(
    CannotAssessConfig,
    strategy=st.sampled_from(["skip", "zero", "partial", "fail"]),
    partial_credit=st.floats(0.0, 1.0),
)


@st.composite
def penalties(draw: st.DrawFn) -> LengthPenalty:
    budget = draw(st.integers(0, 1000))
    return LengthPenalty(
        free_budget=budget,
        max_cap=draw(st.integers(budget + 1, 2000)),
        penalty_at_cap=draw(st.floats(0.0, 3.0)),
        exponent=draw(st.floats(0.1, 5.0)),
        apply_to=draw(st.sampled_from(["all", "output", "thinking"])),
    )


@st.composite
def option_lists(draw: st.DrawFn, values=grid_values, na: bool = True) -> list[CriterionOption]:
    vals = draw(st.lists(values, min_size=2, max_size=6))
    options = [CriterionOption(label=f"o{i}", value=x) for i, x in enumerate(vals)]
    if na and draw(st.booleans()):
        options.insert(draw(st.integers(0, len(options))), CriterionOption(label="NA", na=True))
    return options


@st.composite
def option_ballots(draw: st.DrawFn, values=grid_values):
    options = draw(option_lists(values))
    scored = [i for i, o in enumerate(options) if not o.na]
    ballots = draw(
        st.lists(st.tuples(st.sampled_from(scored), judge_weights), min_size=1, max_size=9)
    )
    return options, ballots


binary_ballots = st.lists(st.tuples(st.sampled_from([MET, UNMET]), judge_weights), max_size=9)


def value_of(options: list[CriterionOption], index: int) -> float:
    value = options[index].value
    assert value is not None
    return value


# --- the normalized score ---------------------------------------------------------------------


@given(
    criteria=st.lists(st.tuples(weights, st.one_of(st.none(), any_values)), max_size=8),
    config=strategies,
    penalty=penalties(),
    words=st.integers(0, 3000),
)
def test_normalized_score_in_unit_interval(criteria, config, penalty, words) -> None:
    amount = length_penalty_amount(words, penalty)
    assert 0.0 <= amount <= penalty.penalty_at_cap
    result = score_item(criteria, config, normalize=True, penalty=amount)
    assert result.length_penalty == amount
    skip = config.strategy.value == "skip"
    if not criteria or (skip and all(v is None for _, v in criteria)):
        assert result.score is None
    else:
        assert result.score is not None
        assert 0.0 <= result.score <= 1.0
        no_penalty = score_item(criteria, config, normalize=True)
        assert no_penalty.raw_score == result.raw_score
        assert result.score <= no_penalty.score


@given(words=st.integers(0, 5000), penalty=penalties())
def test_length_penalty_is_monotone_in_word_count(words: int, penalty: LengthPenalty) -> None:
    assert length_penalty_amount(words, penalty) <= length_penalty_amount(words + 1, penalty)


# --- ballot order never matters ---------------------------------------------------------------


@given(ballots=binary_ballots, sign=signs, data=st.data())
def test_binary_permutation_invariant(ballots, sign, data) -> None:
    shuffled = data.draw(st.permutations(ballots))
    for method in BINARY:
        assert aggregate_binary(ballots, method, sign) == aggregate_binary(shuffled, method, sign)


@given(case=option_ballots(), sign=signs, data=st.data())
def test_ordinal_permutation_invariant(case, sign, data) -> None:
    options, ballots = case
    shuffled = data.draw(st.permutations(ballots))
    for method in ORDINAL:
        index, value = aggregate_ordinal(ballots, options, method, sign)
        index2, value2 = aggregate_ordinal(shuffled, options, method, sign)
        assert index == index2, method
        assert value is not None and value2 is not None
        assert abs(value - value2) <= EPS


@given(case=option_ballots(), sign=signs, data=st.data())
def test_nominal_permutation_invariant(case, sign, data) -> None:
    options, ballots = case
    shuffled = data.draw(st.permutations(ballots))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in NOMINAL:
            first = aggregate_nominal(ballots, options, method, sign)
            assert first == aggregate_nominal(shuffled, options, method, sign), method


# --- snapped centers stay inside the selected range -------------------------------------------


@given(case=option_ballots(values=any_values), sign=signs)
def test_snapped_center_between_min_and_max(case, sign) -> None:
    options, ballots = case
    selected = [value_of(options, i) for i, _ in ballots]
    lo, hi = min(selected), max(selected)
    for method in CENTERED:
        index, center = aggregate_ordinal(ballots, options, method, sign)
        assert index is not None and center is not None
        assert not options[index].na
        assert lo - EPS <= center <= hi + EPS
        assert lo - EPS <= value_of(options, index) <= hi + EPS
        # and it is a nearest option
        best = min(abs(o.value - center) for o in options if not o.na)
        assert abs(value_of(options, index) - center) <= best + EPS


@given(options=option_lists(), sign=signs, data=st.data())
def test_unanimous_ballots_win_under_every_method(options, sign, data) -> None:
    scored = [i for i, o in enumerate(options) if not o.na]
    choice = data.draw(st.sampled_from(scored))
    ballots = [(choice, w) for w in data.draw(st.lists(judge_weights, min_size=1, max_size=5))]
    for method in ORDINAL:
        index, _ = aggregate_ordinal(ballots, options, method, sign)
        assert index is not None
        assert abs(value_of(options, index) - value_of(options, choice)) <= EPS
    for method in NOMINAL:
        assert aggregate_nominal(ballots, options, method, sign) == choice


# --- the weight sign decides ties -------------------------------------------------------------


@given(ballots=binary_ballots)
def test_binary_negative_weight_never_resolves_lower(ballots) -> None:
    for method in BINARY:
        pos = aggregate_binary(ballots, method, 10.0)
        neg = aggregate_binary(ballots, method, -10.0)
        if pos != neg:
            assert (pos, neg) == (UNMET, MET)


@given(pairs=st.lists(judge_weights, min_size=1, max_size=5), data=st.data())
def test_binary_tie_flips_with_weight_sign(pairs, data) -> None:
    ballots = [(MET, w) for w in pairs] + [(UNMET, w) for w in pairs]
    ballots = data.draw(st.permutations(ballots))
    for method in ("majority", "weighted"):
        assert aggregate_binary(ballots, method, 5.0) is UNMET
        assert aggregate_binary(ballots, method, -5.0) is MET


@given(case=option_ballots())
def test_option_negative_weight_never_resolves_lower(case) -> None:
    options, ballots = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in ORDINAL:
            pos, _ = aggregate_ordinal(ballots, options, method, 10.0)
            neg, _ = aggregate_ordinal(ballots, options, method, -10.0)
            assert pos is not None and neg is not None
            assert value_of(options, pos) <= value_of(options, neg) + EPS
        for method in ("mode", "weighted_mode"):
            pos = aggregate_nominal(ballots, options, method, 10.0)
            neg = aggregate_nominal(ballots, options, method, -10.0)
            assert pos is not None and neg is not None
            assert value_of(options, pos) <= value_of(options, neg) + EPS


@given(low=st.integers(0, 9), gap=st.integers(1, 10), votes=st.integers(1, 4), data=st.data())
def test_option_tie_flips_with_weight_sign(low, gap, votes, data) -> None:
    lo, hi = low / 20, (low + gap) / 20
    options = [CriterionOption(label="hi", value=hi), CriterionOption(label="lo", value=lo)]
    ballots = data.draw(st.permutations([(0, 1.0)] * votes + [(1, 1.0)] * votes))
    for method in ("mean", "median", "mode"):
        assert aggregate_ordinal(ballots, options, method, 1.0)[0] == 1, method
        assert aggregate_ordinal(ballots, options, method, -1.0)[0] == 0, method
    for method in ("mode", "weighted_mode"):
        assert aggregate_nominal(ballots, options, method, 1.0) == 1
        assert aggregate_nominal(ballots, options, method, -1.0) == 0


# --- sample reduction keeps a real sample -----------------------------------------------------


@given(values=st.lists(grid_values, min_size=1, max_size=9))
def test_reduce_samples_keeps_real_samples(values) -> None:
    mean = sum(values) / len(values)
    kept = reduce_samples(values, "mean")
    assert all(abs(values[kept] - mean) <= abs(x - mean) + EPS for x in values)
    assert all(abs(x - mean) > abs(values[kept] - mean) + EPS for x in values[:kept])
    assert values[reduce_samples(values, "median")] == sorted(values)[len(values) // 2]
    kept = reduce_samples(values, "majority")
    counts = [sum(abs(x - y) <= EPS for y in values) for x in values]
    assert counts[kept] == max(counts)
