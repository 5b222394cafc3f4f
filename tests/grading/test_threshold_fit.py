"""Per-criterion thresholds: the greedy fit on hand-worked pairs, and its properties on random
ones (reaches the target when it answers, never dearer than the best single threshold)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from autorubric_cli.core.cascade import FirstStage
from autorubric_cli.core.config import JudgeSpec, LLMConfig
from autorubric_cli.core.evaluate import ScoringRules
from autorubric_cli.core.records import CriterionRecord, CriterionVerdict
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.core.thresholds import criterion_threshold
from autorubric_cli.grading.calibrate import Pair, recommend, threshold_entry, thresholds
from autorubric_cli.grading.threshold_fit import criterion_fits, fit_per_criterion

MET, UNMET = CriterionVerdict.MET.value, CriterionVerdict.UNMET.value
NAMES = ["A", "B"]
RULES = ScoringRules.from_rubric(
    Rubric(
        criteria=[Criterion(name=n, requirement="r") for n in NAMES],
        grader=LLMConfig(judges=[JudgeSpec(model="m")]),
    )
)


def pair(criterion: int, agreement: float, first_right: bool, truth: str | None = None) -> Pair:
    """The `then` outcome is MET; the first stage says MET when `first_right`."""
    outcome = CriterionRecord(name=NAMES[criterion], verdict=MET if first_right else UNMET)
    return Pair(
        item=f"i{agreement}{first_right}",
        criterion=criterion,
        first=FirstStage(outcome, agreement, False),
        then_outcome=MET,
        truth=truth,
        first_cost=0.1,
        then_cost=1.0,
    )


def split_pairs(criterion: int, wrong: int) -> list[Pair]:
    """5 unanimous and right; 5 split 2-1, `wrong` of them wrong."""
    unanimous = [pair(criterion, 1.0, True) for _ in range(5)]
    return unanimous + [pair(criterion, 2 / 3, i >= wrong) for i in range(5)]


PAIRS = split_pairs(0, wrong=4) + split_pairs(1, wrong=1)


def test_the_move_that_loses_least_per_dollar_comes_first() -> None:
    # all splits escalated: 20 of 20 agree, cost 10; keeping B's splits loses 1 and saves 5,
    # A's loses 4 for the same 5; at 0.9 (18 of 20) only B's can go
    fitted = fit_per_criterion(PAIRS, NAMES, 0.9, "then", single=1.0)
    assert fitted == {"A": 0.7, "B": 0.0}  # the lowest thresholds that give each result
    entry = threshold_entry(PAIRS, RULES, fitted)
    assert entry.agreement_with_then == 19 / 20 and entry.escalation_rate == 5 / 20
    assert entry.per_criterion == fitted and entry.threshold is None
    single = recommend([threshold_entry(PAIRS, RULES, t) for t in thresholds(PAIRS)], 0.9)
    assert single is not None and entry.cost is not None and single.cost is not None
    assert single.escalation_rate == 0.5 and entry.cost < single.cost
    a, b = criterion_fits(PAIRS, fitted)
    assert (a.name, a.threshold, a.escalation_rate, a.agreement_with_then) == ("A", 0.7, 0.5, 1)
    assert (a.cost, a.all_then_cost, a.saved) == (1.0 + 5.0, 10.0, 4.0)
    assert (b.cost, b.saved) == (1.0, 9.0)


def test_a_lower_target_keeps_more_first_stage_outcomes() -> None:
    assert fit_per_criterion(PAIRS, NAMES, 0.75, "then", single=None) == {"A": 0.0, "B": 0.0}
    assert fit_per_criterion(PAIRS, NAMES, 1.0, "then", single=1.0) == {"A": 0.7, "B": 0.7}


def test_an_unreachable_target_recommends_nothing() -> None:
    wrong_then = [
        Pair(p.item, p.criterion, p.first, UNMET, p.truth, p.first_cost, p.then_cost)
        for p in split_pairs(0, wrong=0)
    ]
    assert fit_per_criterion(wrong_then, NAMES[:1], 0.9, "then", single=None) is None


def test_against_labels_the_goal_is_the_label_over_labelled_pairs() -> None:
    # the then judge says MET everywhere; the labels say UNMET on the split pairs, where the
    # first stage is mostly wrong about MET, i.e. right about the label: escalating hurts
    labelled = [pair(0, 1.0, True, truth=MET) for _ in range(5)] + [
        pair(0, 2 / 3, i >= 4, truth=UNMET) for i in range(5)
    ]
    fitted = fit_per_criterion(labelled, NAMES[:1], 0.8, "labels", single=None)
    assert fitted == {"A": 0.0}
    entry = threshold_entry(labelled, RULES, fitted)
    assert entry.agreement_with_labels == 0.9
    assert fit_per_criterion(labelled, NAMES[:1], 0.8, "then", single=None) == {"A": 0.7}


def test_a_map_is_read_name_then_star_then_one() -> None:
    assert criterion_threshold({"A": 0.3, "*": 0.6}, "A") == 0.3
    assert criterion_threshold({"A": 0.3, "*": 0.6}, "B") == 0.6
    assert criterion_threshold({"A": 0.3}, "B") == 1.0
    assert criterion_threshold(0.4, "B") == 0.4


AGREEMENTS = st.sampled_from([1 / 3, 0.5, 2 / 3, 0.75, 1.0])
RANDOM_PAIR = st.tuples(st.integers(0, 1), AGREEMENTS, st.booleans(), st.floats(0.0, 2.0))


@settings(max_examples=60, deadline=None)
@given(st.lists(RANDOM_PAIR, min_size=2, max_size=30), st.floats(0.5, 1.0))
def test_the_fit_reaches_the_target_and_never_costs_more_than_one_threshold(
    drawn: list[tuple[int, float, bool, float]], target: float
) -> None:
    pairs = [
        Pair(f"i{n}", c, pair(c, a, right).first, MET, None, 0.1, cost)
        for n, (c, a, right, cost) in enumerate(drawn)
    ]
    entries = [threshold_entry(pairs, RULES, t) for t in thresholds(pairs)]
    single = recommend(entries, target)
    fitted = fit_per_criterion(
        pairs, NAMES, target, "then", None if single is None else single.threshold
    )
    reachable = max(e.agreement_with_then or 0.0 for e in entries) >= target - 1e-9
    assert (fitted is not None) == reachable  # a set can reach what one threshold can
    if fitted is None or single is None:
        return
    entry = threshold_entry(pairs, RULES, fitted)
    assert entry.agreement_with_then is not None
    assert entry.agreement_with_then >= target - 1e-9
    assert entry.cost is not None and single.cost is not None
    assert entry.cost <= single.cost + 1e-9


def test_a_greedy_trap_falls_back_to_the_best_single_threshold() -> None:
    # A's 2-1 splits (agreement 2/3) save 10 and lose 2; B's three-way splits (1/3) save 6 and
    # lose 1. Greedy from the top takes B's (6 per point) and then cannot afford A's; one
    # threshold in (1/3, 2/3] keeps A's instead and saves 10
    a = [pair(0, 2 / 3, i >= 2) for i in range(5)]
    b = [pair(1, 1 / 3, i >= 1) for i in range(6)]
    pairs = [*a, *b] + [pair(i % 2, 1.0, True) for i in range(9)]
    pairs = [
        Pair(p.item, p.criterion, p.first, p.then_outcome, None, 0.1, 2.0 if p in a else 1.0)
        for p in pairs
    ]
    single = recommend([threshold_entry(pairs, RULES, t) for t in thresholds(pairs)], 0.9)
    assert single is not None and single.threshold is not None
    assert 1 / 3 < single.threshold <= 2 / 3
    fitted = fit_per_criterion(pairs, NAMES, 0.9, "then", single.threshold)
    assert fitted is not None
    entry = threshold_entry(pairs, RULES, fitted)
    assert entry.cost == single.cost and entry.escalation_rate == 6 / 20
    greedy_only = fit_per_criterion(pairs, NAMES, 0.9, "then", None)
    assert greedy_only is not None
    dearer = threshold_entry(pairs, RULES, greedy_only)
    assert dearer.cost is not None and single.cost is not None and dearer.cost > single.cost
