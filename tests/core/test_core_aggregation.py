"""Hand-worked cases for the ensemble rules of docs/guides/rubrics.md (core/aggregation.py)."""

from __future__ import annotations

import pytest

from autorubric_cli.core.aggregation import (
    aggregate_binary,
    aggregate_nominal,
    aggregate_ordinal,
    reduce_samples,
    snap_to_option,
    worst_option,
    worst_verdict,
)
from autorubric_cli.core.records import CriterionVerdict
from autorubric_cli.core.rubric import CriterionOption

MET, UNMET, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS


def opts(*values: float | None) -> list[CriterionOption]:
    """Options labelled o0, o1, ...; a None value makes an NA option."""
    return [
        CriterionOption(label=f"o{i}", na=True)
        if v is None
        else CriterionOption(label=f"o{i}", value=v)
        for i, v in enumerate(values)
    ]


def unit(*indices: int) -> list[tuple[int, float]]:
    return [(i, 1.0) for i in indices]


THREE = opts(0.0, 0.5, 1.0)


# --- binary -----------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["majority", "weighted", "unanimous", "any"])
@pytest.mark.parametrize("weight", [10.0, -10.0])
def test_binary_no_ballots_is_cannot_assess(method: str, weight: float) -> None:
    assert aggregate_binary([], method, weight) is CA


@pytest.mark.parametrize("method", ["majority", "weighted"])
@pytest.mark.parametrize(("weight", "expected"), [(10.0, UNMET), (-10.0, MET), (0.0, UNMET)])
def test_binary_tie_goes_to_worst(method: str, weight: float, expected: CriterionVerdict) -> None:
    ballots = [(MET, 1.0), (UNMET, 1.0), (MET, 1.0), (UNMET, 1.0)]
    assert aggregate_binary(ballots, method, weight) is expected


def test_binary_majority_counts_heads_weighted_sums_weights() -> None:
    ballots = [(MET, 2.0), (UNMET, 1.0), (UNMET, 0.5)]
    assert aggregate_binary(ballots, "majority", 10.0) is UNMET
    assert aggregate_binary(ballots, "weighted", 10.0) is MET
    # a strict winner wins whatever the weight sign
    assert aggregate_binary(ballots, "majority", -10.0) is UNMET
    assert aggregate_binary(ballots, "weighted", -10.0) is MET


@pytest.mark.parametrize(("weight", "expected"), [(5.0, UNMET), (-5.0, MET)])
def test_binary_weighted_tie_by_weight_sums(weight: float, expected: CriterionVerdict) -> None:
    # 1.5 for MET against 1 + 0.5 for UNMET, with a head count of 1 vs 2
    ballots = [(MET, 1.5), (UNMET, 1.0), (UNMET, 0.5)]
    assert aggregate_binary(ballots, "weighted", weight) is expected
    assert aggregate_binary(ballots, "majority", weight) is UNMET


@pytest.mark.parametrize(("weight", "expected"), [(1.0, UNMET), (-1.0, MET)])
def test_binary_weight_sums_within_1e9_are_a_tie(weight: float, expected: CriterionVerdict) -> None:
    # 0.1 + 0.2 == 0.30000000000000004 in floating point: still a tie
    ballots = [(MET, 0.3), (UNMET, 0.1), (UNMET, 0.2)]
    assert aggregate_binary(ballots, "weighted", weight) is expected


@pytest.mark.parametrize("weight", [10.0, -10.0])
def test_binary_unanimous_and_any(weight: float) -> None:
    assert aggregate_binary([(MET, 1.0), (MET, 3.0)], "unanimous", weight) is MET
    assert aggregate_binary([(MET, 3.0), (MET, 1.0), (UNMET, 0.1)], "unanimous", weight) is UNMET
    assert aggregate_binary([(UNMET, 3.0), (UNMET, 1.0), (MET, 0.1)], "any", weight) is MET
    assert aggregate_binary([(UNMET, 1.0), (UNMET, 1.0)], "any", weight) is UNMET
    assert aggregate_binary([(MET, 1.0)], "any", weight) is MET


def test_worst_verdict_by_sign() -> None:
    assert worst_verdict(3.0) is UNMET
    assert worst_verdict(0.0) is UNMET
    assert worst_verdict(-3.0) is MET


# --- worst option and snapping ----------------------------------------------------------------


def test_worst_option_by_sign_and_lowest_index_among_equal_values() -> None:
    options = opts(0.5, 0.0, 1.0, 0.0, 1.0)
    assert worst_option([0, 1, 2, 3, 4], options, 10.0) == 1
    assert worst_option([0, 3, 4, 2], options, 10.0) == 3
    assert worst_option([0, 1, 2, 3, 4], options, -10.0) == 2
    assert worst_option([4, 0], options, -10.0) == 4
    assert worst_option([0, 2], options, 0.0) == 0


@pytest.mark.parametrize(("weight", "expected"), [(10.0, 0), (-10.0, 1)])
def test_snap_midpoint_goes_to_worst(weight: float, expected: int) -> None:
    assert snap_to_option(0.25, THREE, weight) == expected


def test_snap_nearest_ignores_na_options() -> None:
    options = opts(None, 0.0, 0.67, 1.0)
    assert snap_to_option(0.6, options, 10.0) == 2
    assert snap_to_option(0.9, options, 10.0) == 3
    assert snap_to_option(0.1, options, -10.0) == 1


def test_snap_distances_within_1e9_are_a_tie() -> None:
    # 0.335 is (up to rounding) halfway between 0.0 and 0.67
    options = opts(0.0, 0.67, 1.0)
    assert snap_to_option((0.0 + 0.67) / 2, options, 10.0) == 0
    assert snap_to_option((0.0 + 0.67) / 2, options, -10.0) == 1


# --- ordinal ----------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["mean", "median", "weighted_mean", "mode", "min", "max"])
def test_ordinal_no_ballots(method: str) -> None:
    assert aggregate_ordinal([], THREE, method, 10.0) == (None, None)


@pytest.mark.parametrize(("weight", "expected"), [(10.0, 0), (-10.0, 1)])
def test_ordinal_mean_between_two_options_snaps_to_worst(weight: float, expected: int) -> None:
    # values 0.0 and 0.5 -> mean 0.25, exactly between options 0.0 and 0.5
    index, value = aggregate_ordinal(unit(0, 1), THREE, "mean", weight)
    assert index == expected
    assert value == pytest.approx(0.25, abs=1e-12)


def test_ordinal_mean_snaps_to_nearest() -> None:
    # (0 + 1 + 1) / 3 = 0.667: 0.167 from 0.5 and 0.333 from 1.0
    index, value = aggregate_ordinal(unit(0, 2, 2), THREE, "mean", 10.0)
    assert value == pytest.approx(2 / 3)
    assert index == 1
    index, value = aggregate_ordinal(unit(2, 2, 2, 0), opts(0.0, 0.25, 1.0), "mean", 10.0)
    assert value == pytest.approx(0.75)
    assert index == 2


@pytest.mark.parametrize(("weight", "expected"), [(10.0, 1), (-10.0, 2)])
def test_ordinal_median_of_even_count(weight: float, expected: int) -> None:
    # values 0, 0.5, 1, 1 -> median 0.75, halfway between 0.5 and 1.0
    index, value = aggregate_ordinal(unit(0, 1, 2, 2), THREE, "median", weight)
    assert value == pytest.approx(0.75)
    assert index == expected


def test_ordinal_median_of_odd_count() -> None:
    index, value = aggregate_ordinal(unit(2, 0, 0), THREE, "median", -10.0)
    assert (index, value) == (0, 0.0)


def test_ordinal_weighted_mean_uses_judge_weights() -> None:
    ballots = [(2, 4.0), (0, 1.0)]  # (4*1 + 1*0) / 5 = 0.8
    index, value = aggregate_ordinal(ballots, THREE, "weighted_mean", 10.0)
    assert value == pytest.approx(0.8)
    assert index == 2
    index, value = aggregate_ordinal(ballots, THREE, "mean", 10.0)
    assert value == pytest.approx(0.5)
    assert index == 1


def test_ordinal_min_max_lowest_index_among_equal_values() -> None:
    options = opts(0.0, 0.5, 0.5, 1.0, 1.0)
    assert aggregate_ordinal(unit(2, 1, 4, 3), options, "min", 10.0) == (1, 0.5)
    assert aggregate_ordinal(unit(2, 1, 4, 3), options, "max", 10.0) == (3, 1.0)
    assert aggregate_ordinal(unit(4, 3, 0), options, "max", -10.0) == (3, 1.0)
    assert aggregate_ordinal(unit(4, 3, 0), options, "min", -10.0) == (0, 0.0)


def test_ordinal_mode_most_selected() -> None:
    assert aggregate_ordinal(unit(2, 0, 2, 1), THREE, "mode", 10.0) == (2, 1.0)


@pytest.mark.parametrize(("weight", "expected"), [(10.0, 0), (-10.0, 2)])
def test_ordinal_mode_tie_goes_to_worst(weight: float, expected: int) -> None:
    index, _ = aggregate_ordinal(unit(2, 0, 1, 0, 2), THREE, "mode", weight)
    assert index == expected


@pytest.mark.parametrize("weight", [10.0, -10.0])
def test_ordinal_mode_tie_between_equal_values_lowest_index(weight: float) -> None:
    options = opts(0.0, 0.5, 0.5, 1.0)
    assert aggregate_ordinal(unit(2, 1, 2, 1), options, "mode", weight) == (1, 0.5)


# --- nominal ----------------------------------------------------------------------------------


NOMINAL_NA = opts(0.0, 1.0, 0.5, None)


@pytest.mark.parametrize("method", ["mode", "weighted_mode", "unanimous"])
def test_nominal_no_ballots(method: str) -> None:
    assert aggregate_nominal([], NOMINAL_NA, method, 10.0) is None


def test_nominal_unanimous_agreement() -> None:
    assert aggregate_nominal(unit(2, 2, 2), NOMINAL_NA, "unanimous", 10.0) == 2


def test_nominal_unanimous_disagreement_with_na_option() -> None:
    assert aggregate_nominal(unit(1, 1, 0), NOMINAL_NA, "unanimous", 10.0) == 3


@pytest.mark.parametrize(("weight", "expected"), [(10.0, 0), (-10.0, 1)])
def test_nominal_unanimous_without_na_falls_back_to_mode_and_warns(
    weight: float, expected: int
) -> None:
    options = opts(0.0, 1.0, 0.5)
    with pytest.warns(UserWarning, match="mode"):
        assert aggregate_nominal(unit(1, 1, 0), options, "unanimous", weight) == 1
    with pytest.warns(UserWarning):
        assert aggregate_nominal(unit(1, 0), options, "unanimous", weight) == expected


def test_nominal_mode_and_weighted_mode() -> None:
    ballots = [(0, 1.0), (0, 1.0), (1, 3.0)]
    assert aggregate_nominal(ballots, NOMINAL_NA, "mode", 10.0) == 0
    assert aggregate_nominal(ballots, NOMINAL_NA, "weighted_mode", 10.0) == 1


@pytest.mark.parametrize(("weight", "expected"), [(10.0, 2), (-10.0, 1)])
def test_nominal_weighted_mode_tie_goes_to_worst(weight: float, expected: int) -> None:
    # 1 has weight 2.0, 2 has 1.5 + 0.5; 0 trails with 1.0
    ballots = [(1, 2.0), (2, 1.5), (2, 0.5), (0, 1.0)]
    assert aggregate_nominal(ballots, NOMINAL_NA, "weighted_mode", weight) == expected


# --- sample reduction -------------------------------------------------------------------------


def test_reduce_mean_keeps_sample_closest_to_mean() -> None:
    assert reduce_samples([0.0, 0.5, 1.0, 0.9], "mean") == 1  # mean 0.6
    assert reduce_samples([1.0, 0.0, 0.0, 0.0], "mean") == 1  # mean 0.25


def test_reduce_mean_ties_keep_earliest() -> None:
    assert reduce_samples([1.0, 0.0], "mean") == 0
    assert reduce_samples([0.0, 1.0, 1.0], "mean") == 1  # mean 2/3: the two 1.0 tie
    assert reduce_samples([0.2, 0.8, 0.5, 0.5], "mean") == 2


def test_reduce_median_odd_and_upper_median_for_even() -> None:
    assert reduce_samples([1.0, 0.0, 0.5], "median") == 2
    assert reduce_samples([0.2, 0.8, 0.4, 0.6], "median") == 3  # 0.6, not 0.4
    assert reduce_samples([1.0, 0.0], "median") == 0  # MET=1 is the upper median


def test_reduce_majority_most_frequent_value() -> None:
    values = [1.0, 0.0, 1.0]
    assert values[reduce_samples(values, "majority")] == 1.0
    values = [0.5, 0.0, 0.0, 1.0]
    assert values[reduce_samples(values, "majority")] == 0.0


def test_reduce_majority_ties_resolved_by_median_of_tied_samples() -> None:
    # 0 and 1 appear twice each; the median of the tied samples [0, 0, 1, 1] is the upper
    # median 1.0 (the median of all five samples would be 0.5)
    values = [0.0, 0.0, 1.0, 1.0, 0.5]
    assert values[reduce_samples(values, "majority")] == 1.0
    values = [0.0, 1.0]
    assert reduce_samples(values, "majority") == 1
    values = [0.5, 0.0, 1.0]  # all tied: the median of the three
    assert reduce_samples(values, "majority") == 0


def test_reduce_majority_values_within_1e9_count_as_equal() -> None:
    values = [0.9, 0.1 + 0.2, 0.3, 0.6]
    assert values[reduce_samples(values, "majority")] == pytest.approx(0.3)


@pytest.mark.parametrize("method", ["mean", "median", "majority"])
def test_reduce_single_sample(method: str) -> None:
    assert reduce_samples([0.7], method) == 0


def test_reduce_rejects_empty_and_unknown() -> None:
    with pytest.raises(ValueError):
        reduce_samples([], "mean")
    with pytest.raises(ValueError):
        reduce_samples([1.0], "mode")
