"""From Vote records to criterion records and item scores (core/evaluate.py,
docs/guides/rubrics.md)."""

from __future__ import annotations

import pytest

from autorubric_cli.core.config import CannotAssessConfig, JudgeSpec, LengthPenalty, LLMConfig
from autorubric_cli.core.evaluate import (
    ScoringRules,
    aggregate_criterion,
    evaluate_votes,
    kept_votes,
)
from autorubric_cli.core.records import CriterionVerdict, Vote
from autorubric_cli.core.rubric import Criterion, CriterionOption, Rubric

MET, UNMET, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS


def binary(name: str, weight: float = 10.0, aggregation: str | None = None) -> Criterion:
    return Criterion(name=name, requirement=f"req {name}", weight=weight, aggregation=aggregation)


def multi(
    name: str, values: list[float | None], weight: float = 10.0, scale: str = "ordinal"
) -> Criterion:
    options = [
        CriterionOption(label=f"{name}-{i}", na=True)
        if v is None
        else CriterionOption(label=f"{name}-{i}", value=v)
        for i, v in enumerate(values)
    ]
    return Criterion(
        name=name, requirement=f"req {name}", weight=weight, scale_type=scale, options=options
    )


def rules_for(criteria: list[Criterion], weights: dict[str, float] | None = None, **grader):
    judges = [JudgeSpec(model=f"m/{j}", id=j, weight=w) for j, w in (weights or {}).items()]
    rubric = Rubric(criteria=criteria, grader=LLMConfig(judges=judges, **grader))
    return ScoringRules.from_rubric(rubric)


def v(judge: str, verdict: CriterionVerdict | None = None, **kw) -> Vote:
    return Vote(judge=judge, verdict=verdict, reason=f"{judge}:{kw.get('sample', 0)}", **kw)


def o(judge: str, index: int | None, **kw) -> Vote:
    return Vote(judge=judge, option_index=index, reason=f"{judge}:{kw.get('sample', 0)}", **kw)


# --- set-aside votes and sample reduction ----------------------------------------------------


def test_kept_votes_sets_aside_errors_and_abstentions() -> None:
    crit = binary("acc")
    votes = [
        v("a", MET, sample=0, error="timeout"),
        v("a", UNMET, sample=1),
        v("b", CA),
        v("c", None, error="bad json"),
        v("d", MET),
    ]
    kept = kept_votes(votes, crit, "majority")
    assert [(k.judge, k.sample) for k in kept] == [("a", 1), ("d", 0)]


def test_kept_votes_sets_aside_na_options() -> None:
    crit = multi("sat", [0.0, 1.0, None])
    kept = kept_votes([o("a", 2), o("b", 1), o("c", None), o("d", 0)], crit, "majority")
    assert [k.judge for k in kept] == ["b", "d"]


@pytest.mark.parametrize(
    ("method", "expected_sample"),
    [("majority", 1), ("median", 1), ("mean", 1)],
)
def test_kept_vote_is_a_real_sample_with_its_reason(method: str, expected_sample: int) -> None:
    # values 0, 1, 1 (+ an errored sample set aside first)
    crit = binary("acc")
    votes = [
        v("a", UNMET, sample=0),
        v("a", MET, sample=1),
        v("a", UNMET, sample=2, error="boom"),
        v("a", MET, sample=3),
    ]
    (kept,) = kept_votes(votes, crit, method)
    assert kept.sample == expected_sample
    assert kept.reason == f"a:{expected_sample}"


def test_kept_votes_mean_on_option_values() -> None:
    crit = multi("sat", [0.0, 0.25, 0.5, 1.0])
    # values 0, 1, 0.25, 0.5 -> mean 0.4375: closest is 0.5 (sample 3)
    votes = [o("a", 0, sample=0), o("a", 3, sample=1), o("a", 1, sample=2), o("a", 2, sample=3)]
    (kept,) = kept_votes(votes, crit, "mean")
    assert kept.sample == 3
    (kept,) = kept_votes(votes, crit, "median")  # upper median of 4: 0.5
    assert kept.sample == 3


def test_binary_sample_majority_tie_resolves_by_upper_median() -> None:
    crit = binary("acc")
    votes = [v("a", UNMET, sample=0), v("a", MET, sample=1)]
    (kept,) = kept_votes(votes, crit, "majority")
    assert kept.verdict is MET


# --- aggregate_criterion ----------------------------------------------------------------------


def test_binary_criterion_record_agreement_and_reason() -> None:
    crit = binary("acc")
    rules = rules_for([crit])
    votes = [v("a", MET), v("b", UNMET), v("c", MET), v("d", CA)]
    record = aggregate_criterion(crit, votes, rules)
    assert record.verdict is MET
    assert record.option is None
    assert record.aggregated_value == 1.0
    assert record.agreement == pytest.approx(2 / 3)  # d's abstention is not counted
    assert record.reason == "a:0"
    assert record.votes == votes


@pytest.mark.parametrize("votes", [[], [v("a", CA), v("b", None, error="x")]])
def test_binary_all_abstain_is_cannot_assess(votes: list[Vote]) -> None:
    crit = binary("acc")
    record = aggregate_criterion(crit, votes, rules_for([crit]))
    assert record.verdict is CA
    assert record.aggregated_value is None
    assert record.agreement is None


@pytest.mark.parametrize(("weight", "expected"), [(10.0, UNMET), (-10.0, MET)])
def test_binary_tie_with_judge_weights(weight: float, expected: CriterionVerdict) -> None:
    crit = binary("acc", weight=weight)
    rules = rules_for([crit], {"a": 2.0, "b": 1.0, "c": 1.0}, aggregation="weighted")
    record = aggregate_criterion(crit, [v("a", MET), v("b", UNMET), v("c", UNMET)], rules)
    assert record.verdict is expected
    rules = rules_for([crit], {"a": 2.5, "b": 1.0, "c": 1.0}, aggregation="weighted")
    record = aggregate_criterion(crit, [v("a", MET), v("b", UNMET), v("c", UNMET)], rules)
    assert record.verdict is MET


def test_per_criterion_aggregation_override() -> None:
    crit = binary("acc", aggregation="any")
    rules = rules_for([crit], aggregation="majority")
    record = aggregate_criterion(crit, [v("a", UNMET), v("b", UNMET), v("c", MET)], rules)
    assert record.verdict is MET
    assert record.agreement == pytest.approx(1 / 3)


@pytest.mark.parametrize(("weight", "index"), [(10.0, 0), (-10.0, 1)])
def test_ordinal_mean_record_keeps_unsnapped_value(weight: float, index: int) -> None:
    crit = multi("sat", [0.0, 0.5, 1.0, None], weight=weight)
    rules = rules_for([crit], ordinal_aggregation="mean")
    record = aggregate_criterion(crit, [o("a", 0), o("b", 1), o("c", 3)], rules)
    assert record.option is not None
    assert record.option.index == index
    assert record.option.label == f"sat-{index}"
    assert record.aggregated_value == pytest.approx(0.25)
    assert record.agreement == pytest.approx(0.5)


def test_ordinal_all_na_records_the_na_option() -> None:
    crit = multi("sat", [0.0, 1.0, None])
    record = aggregate_criterion(crit, [o("a", 2), o("b", None, error="x")], rules_for([crit]))
    assert record.option is not None
    assert (record.option.index, record.option.na) == (2, True)
    assert record.verdict is None
    assert record.aggregated_value is None
    assert record.agreement is None


def test_all_abstaining_without_na_option_records_cannot_assess() -> None:
    crit = multi("sat", [0.0, 1.0])
    record = aggregate_criterion(crit, [o("a", None, error="x")], rules_for([crit]))
    assert record.option is None
    assert record.verdict is CA
    assert record.aggregated_value is None


def test_auto_na_option_is_the_recorded_na_outcome() -> None:
    crit = multi("sat", [0.0, 1.0])
    rubric = Rubric(criteria=[crit], grader=LLMConfig(auto_na_option=True))
    rules = ScoringRules.from_rubric(rubric)
    record = aggregate_criterion(rubric.criteria[0], [o("a", None, error="x")], rules)
    assert record.option is not None
    assert (record.option.label, record.option.na) == ("Cannot assess", True)
    assert record.verdict is None


# docs/guides/rubrics.md `fail` on multi-choice: the worst non-NA option's value, by weight sign.
# Options 0.2 / 0.5 / 0.8 reach neither 0 nor 1, so the old rule (0 or 1) gives different numbers.
@pytest.mark.parametrize(
    ("weight", "expected_score", "expected_raw"),
    [
        # v = 0.2 (lowest); other criterion MET w=10: raw 10*0.2 + 10 = 12, P = 20
        (10.0, 12.0 / 20.0, 12.0),
        # v = 0.8 (highest); raw -10*0.8 + 10 = 2, P = 10 -> 0.2
        (-10.0, 2.0 / 10.0, 2.0),
    ],
)
def test_fail_on_multi_choice_uses_worst_option_value(
    weight: float, expected_score: float, expected_raw: float
) -> None:
    crit = multi("sat", [0.2, 0.5, 0.8, None], weight=weight)
    acc = binary("acc")
    rules = rules_for([crit, acc], cannot_assess=CannotAssessConfig(strategy="fail"))
    result = evaluate_votes([[o("a", 3)], [v("a", MET)]], rules, 0)
    assert result.criteria[0].option is not None and result.criteria[0].option.na
    assert result.score.raw_score == pytest.approx(expected_raw)
    assert result.score.score == pytest.approx(expected_score)


def test_fail_on_multi_choice_without_na_option_when_all_votes_error() -> None:
    crit = multi("sat", [0.3, 0.6], weight=-5.0)
    rules = rules_for([crit], cannot_assess=CannotAssessConfig(strategy="fail"))
    result = evaluate_votes([[o("a", None, error="boom")]], rules, 0)
    assert result.criteria[0].verdict is CA
    # v = 0.6 (highest, negative weight): raw = -3, N = 5 -> 1 - 3/5 = 0.4
    assert result.score.raw_score == pytest.approx(-3.0)
    assert result.score.score == pytest.approx(0.4)


def test_nominal_unanimous_disagreement_picks_na_option() -> None:
    crit = multi("kind", [0.0, 1.0, None], scale="nominal")
    rules = rules_for([crit], nominal_aggregation="unanimous")
    record = aggregate_criterion(crit, [o("a", 0), o("b", 1)], rules)
    assert record.option is not None
    assert (record.option.index, record.option.na, record.option.value) == (2, True, None)
    assert record.agreement == 0.0
    record = aggregate_criterion(crit, [o("a", 1), o("b", 1), o("c", 2)], rules)
    assert record.option is not None
    assert record.option.index == 1
    assert record.agreement == 1.0


# --- evaluate_votes ---------------------------------------------------------------------------


def two_criteria_votes() -> list[list[Vote]]:
    return [
        [v("A", MET), v("B", UNMET), v("C", MET)],  # acc (+10): MET
        [v("A", UNMET), v("B", MET), v("C", MET)],  # bad (-5): MET
    ]


def test_evaluate_votes_item_and_per_judge_scores() -> None:
    rules = rules_for([binary("acc", 10.0), binary("bad", -5.0)])
    result = evaluate_votes(two_criteria_votes(), rules, word_count=0)
    assert [r.verdict for r in result.criteria] == [MET, MET]
    assert result.score.raw_score == pytest.approx(5.0)
    assert result.score.score == pytest.approx(0.5)
    # A alone: 10 -> 1.0; B alone: -5 -> clamp(-0.5) = 0; C alone: 5 -> 0.5
    assert result.judge_scores == pytest.approx({"A": 1.0, "B": 0.0, "C": 0.5})
    assert list(result.judge_scores) == ["A", "B", "C"]


def test_evaluate_votes_two_judges_tie_on_both_signs() -> None:
    rules = rules_for([binary("acc", 10.0), binary("bad", -5.0)])
    votes = [vs[:2] for vs in two_criteria_votes()]
    result = evaluate_votes(votes, rules, word_count=0)
    assert [r.verdict for r in result.criteria] == [UNMET, MET]
    assert result.score.score == 0.0
    assert result.score.raw_score == pytest.approx(-5.0)


def test_judge_that_always_abstains_scores_null() -> None:
    rules = rules_for([binary("acc"), binary("b2")])
    votes = [[v("A", MET), v("Z", CA)], [v("A", UNMET), v("Z", None, error="x")]]
    result = evaluate_votes(votes, rules, word_count=0)
    assert result.judge_scores["A"] == pytest.approx(0.5)
    assert result.judge_scores["Z"] is None
    assert result.score.score == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("strategy", "score"), [("skip", 1.0), ("zero", 0.5), ("partial", 0.75), ("fail", 0.5)]
)
def test_evaluate_votes_na_option_follows_strategy(strategy: str, score: float) -> None:
    crits = [binary("acc"), multi("sat", [0.0, 1.0, None])]
    rules = rules_for(crits, cannot_assess=CannotAssessConfig(strategy=strategy))
    result = evaluate_votes([[v("A", MET)], [o("A", 2)]], rules, word_count=0)
    assert result.score.score == pytest.approx(score)


def test_evaluate_votes_length_penalty() -> None:
    penalty = LengthPenalty(free_budget=10, max_cap=20, penalty_at_cap=0.4, exponent=1.0)
    rules = rules_for([binary("acc"), binary("b2")], length_penalty=penalty)
    votes = [[v("A", MET)], [v("A", UNMET)]]
    result = evaluate_votes(votes, rules, word_count=15)  # 0.4 * 0.5
    assert result.score.length_penalty == pytest.approx(0.2)
    assert result.score.score == pytest.approx(0.3)
    assert result.score.raw_score == pytest.approx(10.0)
    assert result.judge_scores["A"] == pytest.approx(0.3)
    assert evaluate_votes(votes, rules, word_count=25).score.score == pytest.approx(0.1)


def test_evaluate_votes_without_normalization() -> None:
    rules = rules_for([binary("acc", 10.0), binary("bad", -5.0)], normalize=False)
    result = evaluate_votes(two_criteria_votes(), rules, word_count=0)
    assert result.score.score == pytest.approx(5.0)
    assert result.judge_scores == pytest.approx({"A": 10.0, "B": -5.0, "C": 5.0})
