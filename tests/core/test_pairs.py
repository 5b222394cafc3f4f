"""Pairwise rules: orders, replies mapped back, and the reductions of orders, samples and panels."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from autorubric_cli.core.items import Item
from autorubric_cli.core.pair_outcome import PairRules, question_outcome
from autorubric_cli.core.pair_records import PairVote
from autorubric_cli.core.pair_truth import question_truths
from autorubric_cli.core.pairs import (
    PREFERENCES,
    Preference,
    across_orders,
    flipped,
    mapped_back,
    orders_asked,
    reduce_panel,
    reduce_samples,
    rubric_preference,
)
from autorubric_cli.core.rubric import Criterion, CriterionOption

preferences = st.lists(st.sampled_from(PREFERENCES), min_size=1, max_size=7)


def test_a_reply_is_mapped_back_through_the_order_shown() -> None:
    assert [mapped_back(r, "AB") for r in PREFERENCES] == ["A", "B", "tie"]
    assert [mapped_back(r, "BA") for r in PREFERENCES] == ["B", "A", "tie"]


def test_a_judge_that_changes_its_mind_with_the_order_gives_a_tie() -> None:
    assert across_orders(["A", "A"]) == "A"
    assert across_orders(["tie", "tie"]) == "tie"
    assert across_orders(["A", "B"]) == "tie"
    assert across_orders(["A", "tie"]) == "tie"  # preferred in one order only
    assert across_orders(["B"]) == "B"  # --swap random: the one order asked


def test_always_first_shown_is_all_ties_in_both_orders() -> None:
    # the judge replies A (first shown) in both orders: the pair's systems A then B
    replies = [mapped_back("A", "AB"), mapped_back("A", "BA")]
    assert across_orders(replies) == "tie"


def test_samples_split_evenly_give_a_tie() -> None:
    for method in ("majority", "mean", "median"):
        assert reduce_samples(["A", "B"], method) == "tie"
        assert reduce_samples(["A", "A", "B"], method) == "A"
    assert reduce_samples(["A", "tie", "tie"], "majority") == "tie"  # most frequent
    assert reduce_samples(["A", "tie", "tie"], "mean") == "A"  # sign of the mean
    assert reduce_samples(["A", "tie", "tie"], "median") == "tie"
    assert reduce_samples(["A", "A", "tie", "B"], "median") == "A"  # middle: tie and A


def test_panels_majority_weighted_unanimous() -> None:
    assert reduce_panel(["A", "B", "A"], [1, 1, 1], "majority") == "A"
    assert reduce_panel(["A", "B"], [1, 1], "majority") == "tie"
    assert reduce_panel(["A", "B", "B"], [3, 1, 1], "weighted") == "A"
    assert reduce_panel(["A", "B", "B"], [2, 1, 1], "weighted") == "tie"
    assert reduce_panel(["A", "A"], [1, 1], "unanimous") == "A"
    assert reduce_panel(["A", "tie"], [1, 1], "unanimous") == "tie"


@given(preferences, st.sampled_from(["majority", "mean", "median"]))
def test_samples_reduce_the_same_from_either_side(prefs: list[Preference], method: str) -> None:
    assert reduce_samples([flipped(p) for p in prefs], method) == flipped(
        reduce_samples(prefs, method)
    )


@given(preferences, st.sampled_from(["majority", "weighted", "unanimous"]))
def test_panels_reduce_the_same_from_either_side(prefs: list[Preference], method: str) -> None:
    weights = [1.0 + i % 3 for i in range(len(prefs))]
    assert reduce_panel([flipped(p) for p in prefs], weights, method) == flipped(
        reduce_panel(prefs, weights, method)
    )


def test_rubric_preference_weighs_criteria_by_absolute_weight() -> None:
    assert rubric_preference(["A", "B"], [10, -15]) == "B"
    assert rubric_preference(["A", "B", None], [10, 10, 50]) == "tie"
    assert rubric_preference([None, None], [1, 1]) is None


def test_random_swap_asks_one_seeded_order_half_of_them_each_way() -> None:
    assert orders_asked("both", 0, "u", "j", 0) == ["AB", "BA"]
    drawn = [orders_asked("random", 7, f"item{i}|a|b", "j", 0) for i in range(400)]
    assert all(len(d) == 1 for d in drawn)
    assert drawn == [orders_asked("random", 7, f"item{i}|a|b", "j", 0) for i in range(400)]
    first = sum(d == ["AB"] for d in drawn)
    assert 160 < first < 240  # a fair coin over 400 draws (p < 1e-4 outside)


def vote(judge: str, sample: int, order: str, preferred: str | None) -> PairVote:
    shown = ["x", "y"] if order == "AB" else ["y", "x"]
    return PairVote(judge=judge, sample=sample, order=order, shown=shown, preferred=preferred)  # type: ignore[arg-type]


def test_an_errored_order_sets_the_sample_aside() -> None:
    rules = PairRules("x", "y", 2, "majority", "majority", {"j": 1.0, "k": 1.0})
    votes = [
        vote("j", 0, "AB", "x"),
        vote("j", 0, "BA", None),  # errored: the sample is set aside
        vote("k", 0, "AB", "y"),
        vote("k", 0, "BA", "y"),
    ]
    assert question_outcome(votes, rules) == "y"
    assert question_outcome(votes[:2], rules) is None


def test_truth_from_ground_truth_then_metadata_score() -> None:
    style = Criterion(
        name="style",
        requirement="style",
        options=[CriterionOption(label="Bad", value=0), CriterionOption(label="Good", value=1)],
    )
    harm = Criterion(name="harm", requirement="harmful", weight=-5)
    a = Item(id="1", submission="a", ground_truth={"style": "Good", "harm": "MET"})
    b = Item(id="1", submission="b", ground_truth={"style": "Bad"}, metadata={"score": 0.9})
    assert question_truths([style, harm], True, a, b) == ["A", None, "A"]
    a2 = a.model_copy(update={"metadata": {"score": 0.2}})
    # harm unlabelled on b: metadata decides it (b scores higher); overall: the labelled criteria
    assert question_truths([style, harm], True, a2, b) == ["A", "B", "A"]
    assert question_truths([harm], False, a, a) == ["tie"]  # MET on both: neither is better
