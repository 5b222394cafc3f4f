"""Hand-worked item scores (docs/guides/rubrics.md, core/scoring.py)."""

from __future__ import annotations

import pytest

from autorubric_cli.core.config import CannotAssessConfig, LengthPenalty
from autorubric_cli.core.scoring import (
    criterion_value,
    length_penalty_amount,
    normalized_score,
    score_item,
    word_count,
)

SKIP = CannotAssessConfig(strategy="skip")
ZERO = CannotAssessConfig(strategy="zero")
PARTIAL = CannotAssessConfig(strategy="partial", partial_credit=0.5)
FAIL = CannotAssessConfig(strategy="fail")


def test_default_cannot_assess_is_skip_with_half_partial_credit() -> None:
    config = CannotAssessConfig()
    assert config.strategy.value == "skip"
    assert config.partial_credit == 0.5


def test_met_unmet_and_option_value() -> None:
    # MET on +10, UNMET on -15, option 0.67 on +10: raw = 10 + 0 + 6.7, P = 20
    result = score_item([(10.0, 1.0), (-15.0, 0.0), (10.0, 0.67)], SKIP, normalize=True)
    assert result.raw_score == pytest.approx(16.7)
    assert result.score == pytest.approx(0.835)
    assert result.length_penalty == 0.0


def test_penalty_criterion_met_lowers_score() -> None:
    # raw = 10 - 15 + 6.7 = 1.7, P = 20
    result = score_item([(10.0, 1.0), (-15.0, 1.0), (10.0, 0.67)], SKIP, normalize=True)
    assert result.raw_score == pytest.approx(1.7)
    assert result.score == pytest.approx(0.085)


def test_score_clamped_at_zero() -> None:
    result = score_item([(10.0, 0.0), (-15.0, 1.0)], SKIP, normalize=True)
    assert result.raw_score == pytest.approx(-15.0)
    assert result.score == 0.0


def test_only_negative_criteria_scored() -> None:
    # P = 0, N = 20: score = clamp(1 + raw / N)
    result = score_item([(-5.0, 1.0), (-15.0, 0.0)], SKIP, normalize=True)
    assert result.raw_score == pytest.approx(-5.0)
    assert result.score == pytest.approx(0.75)
    assert score_item([(-5.0, 0.0), (-15.0, 0.0)], SKIP, True).score == pytest.approx(1.0)
    assert score_item([(-5.0, 1.0), (-15.0, 1.0)], SKIP, True).score == pytest.approx(0.0)


def test_only_negatives_when_the_positive_criterion_is_skipped() -> None:
    result = score_item([(10.0, None), (-4.0, 1.0), (-4.0, 0.0)], SKIP, normalize=True)
    assert result.raw_score == pytest.approx(-4.0)
    assert result.score == pytest.approx(0.5)


def test_nothing_scored_gives_null_score() -> None:
    assert score_item([(10.0, None), (-5.0, None)], SKIP, normalize=True).score is None
    assert score_item([], FAIL, normalize=True).score is None


def test_normalized_score_function() -> None:
    assert normalized_score(5.0, 10.0, 0.0) == pytest.approx(0.5)
    assert normalized_score(12.0, 10.0, 3.0) == 1.0
    assert normalized_score(-3.0, 0.0, 4.0) == pytest.approx(0.25)
    assert normalized_score(-8.0, 0.0, 4.0) == 0.0
    assert normalized_score(0.0, 0.0, 0.0) is None
    # a weight sum within 1e-9 of zero counts as zero
    assert normalized_score(0.0, 1e-12, 0.0) is None


# (strategy, weight, expected v_i) -- docs/guides/rubrics.md
STRATEGY_VALUES = [
    (SKIP, 10.0, None),
    (SKIP, -10.0, None),
    (ZERO, 10.0, 0.0),
    (ZERO, -10.0, 0.0),
    (PARTIAL, 10.0, 0.5),
    (PARTIAL, -10.0, 0.0),
    (FAIL, 10.0, 0.0),
    (FAIL, -10.0, 1.0),
    (CannotAssessConfig(strategy="partial", partial_credit=0.25), 4.0, 0.25),
]


@pytest.mark.parametrize(("config", "weight", "expected"), STRATEGY_VALUES)
def test_criterion_value_for_cannot_assess(
    config: CannotAssessConfig, weight: float, expected: float | None
) -> None:
    assert criterion_value(weight, None, config) == expected


@pytest.mark.parametrize("config", [SKIP, ZERO, PARTIAL, FAIL])
def test_criterion_value_passes_real_values_through(config: CannotAssessConfig) -> None:
    assert criterion_value(10.0, 0.67, config) == 0.67
    assert criterion_value(-10.0, 0.0, config) == 0.0


# An item with a MET +10 criterion and one abstained criterion of weight w.
# (strategy, w, raw_score, score)
STRATEGY_SCORES = [
    (SKIP, 10.0, 10.0, 1.0),  # left out: 10 / 10
    (ZERO, 10.0, 10.0, 0.5),  # v = 0: 10 / 20
    (PARTIAL, 10.0, 15.0, 0.75),  # v = 0.5: 15 / 20
    (FAIL, 10.0, 10.0, 0.5),  # v = 0: 10 / 20
    (SKIP, -10.0, 10.0, 1.0),
    (ZERO, -10.0, 10.0, 1.0),  # v = 0: no penalty
    (PARTIAL, -10.0, 10.0, 1.0),  # v = 0 when w < 0
    (FAIL, -10.0, 0.0, 0.0),  # v = 1: the penalty applies, 0 / 10
]


@pytest.mark.parametrize(("config", "weight", "raw", "score"), STRATEGY_SCORES)
def test_cannot_assess_strategies_in_an_item(
    config: CannotAssessConfig, weight: float, raw: float, score: float
) -> None:
    result = score_item([(10.0, 1.0), (weight, None)], config, normalize=True)
    assert result.raw_score == pytest.approx(raw)
    assert result.score == pytest.approx(score)


@pytest.mark.parametrize(
    ("config", "score"), [(SKIP, None), (ZERO, 1.0), (PARTIAL, 1.0), (FAIL, 0.0)]
)
def test_cannot_assess_on_a_lone_penalty_criterion(
    config: CannotAssessConfig, score: float | None
) -> None:
    assert score_item([(-10.0, None)], config, normalize=True).score == score


def test_partial_credit_amount() -> None:
    config = CannotAssessConfig(strategy="partial", partial_credit=0.25)
    # raw = 10 + 2.5 = 12.5, P = 20
    result = score_item([(10.0, 1.0), (10.0, None)], config, normalize=True)
    assert result.raw_score == pytest.approx(12.5)
    assert result.score == pytest.approx(0.625)


def test_normalize_false_gives_raw_score() -> None:
    result = score_item([(10.0, 1.0), (-15.0, 1.0), (10.0, 0.67)], SKIP, normalize=False)
    assert result.score == pytest.approx(1.7)
    assert result.raw_score == pytest.approx(1.7)


# --- length penalty ---------------------------------------------------------------------------

PENALTY = LengthPenalty(free_budget=100, max_cap=200, penalty_at_cap=0.5, exponent=2.0)


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (0, 0.0),
        (50, 0.0),
        (100, 0.0),  # at the budget: still free
        (101, 0.5 * 0.01**2),  # 5e-05
        (150, 0.125),  # 0.5 * (50 / 100) ** 2
        (190, 0.405),  # 0.5 * 0.9 ** 2
        (200, 0.5),  # at the cap
        (10_000, 0.5),  # beyond the cap
    ],
)
def test_length_penalty_amount(words: int, expected: float) -> None:
    assert length_penalty_amount(words, PENALTY) == pytest.approx(expected, abs=1e-12)


def test_length_penalty_defaults_from_spec() -> None:
    config = LengthPenalty()
    assert (config.free_budget, config.max_cap, config.penalty_at_cap) == (6000, 8000, 0.5)
    assert (config.exponent, config.apply_to) == (1.6, "all")
    # halfway: 0.5 * 0.5 ** 1.6 = 0.5 * 0.3298769776932235
    assert length_penalty_amount(7000, config) == pytest.approx(0.16493848884661177, abs=1e-12)


def test_length_penalty_subtracted_from_score_raw_untouched() -> None:
    result = score_item([(10.0, 1.0), (-15.0, 0.0), (10.0, 0.67)], SKIP, True, penalty=0.125)
    assert result.score == pytest.approx(0.835 - 0.125)
    assert result.raw_score == pytest.approx(16.7)
    assert result.length_penalty == 0.125


def test_length_penalty_floors_normalized_score_at_zero() -> None:
    result = score_item([(10.0, 1.0), (10.0, 0.0), (10.0, 0.0)], SKIP, True, penalty=0.5)
    assert result.score == 0.0
    assert result.raw_score == pytest.approx(10.0)


def test_length_penalty_without_normalization_is_not_floored() -> None:
    result = score_item([(10.0, 1.0), (-15.0, 1.0)], SKIP, False, penalty=0.5)
    assert result.score == pytest.approx(-5.5)
    assert result.raw_score == pytest.approx(-5.0)


@pytest.mark.parametrize(
    ("thinking", "output", "apply_to", "expected"),
    [
        ("a b c", "d e", "all", 5),
        ("a b c", "d e", "output", 2),
        ("a b c", "d e", "thinking", 3),
        (None, "d e", "all", 2),
        (None, "d e", "thinking", 0),
        ("  x\n\ty  ", " one\ntwo\r\nthree ", "all", 5),
        ("", "", "all", 0),
    ],
)
def test_word_count(thinking: str | None, output: str, apply_to: str, expected: int) -> None:
    assert word_count(thinking, output, apply_to) == expected


@pytest.mark.parametrize(
    ("apply_to", "penalty"), [("all", 0.125), ("output", 0.0), ("thinking", 0.0)]
)
def test_apply_to_chooses_the_counted_part(apply_to: str, penalty: float) -> None:
    # 80 words of thinking + 70 of output: only "all" (150 words) goes over the budget of 100
    thinking, output = " ".join(["t"] * 80), " ".join(["o"] * 70)
    config = PENALTY.model_copy(update={"apply_to": apply_to})
    count = word_count(thinking, output, config.apply_to)
    assert length_penalty_amount(count, config) == pytest.approx(penalty)


def test_apply_to_thinking_only() -> None:
    thinking, output = " ".join(["t"] * 200), "short"
    assert length_penalty_amount(word_count(thinking, output, "thinking"), PENALTY) == 0.5
    assert length_penalty_amount(word_count(thinking, output, "output"), PENALTY) == 0.0


@pytest.mark.parametrize(
    ("weight", "values", "expected"),
    [
        (10.0, [0.25, 0.5, 0.75], 0.25),
        (-10.0, [0.25, 0.5, 0.75], 0.75),
        (3.0, [0.4, 0.1], 0.1),
        (-3.0, [0.4, 0.1], 0.4),
        (10.0, [0.0, 1.0], 0.0),
        (-10.0, [0.0, 1.0], 1.0),
    ],
)
def test_fail_on_multi_choice_gives_worst_option_value(
    weight: float, values: list[float], expected: float
) -> None:
    config = CannotAssessConfig(strategy="fail")
    assert criterion_value(weight, None, config, values) == expected


@pytest.mark.parametrize("strategy", ["zero", "partial"])
def test_other_strategies_ignore_option_values(strategy: str) -> None:
    config = CannotAssessConfig(strategy=strategy, partial_credit=0.5)
    expected = 0.0 if strategy == "zero" else 0.5
    assert criterion_value(10.0, None, config, [0.3, 0.9]) == expected
