"""The escalation rule: hand-worked cases and hypothesis properties."""

from __future__ import annotations

import warnings
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from autorubric_cli.core.cascade import deciding_votes, escalation, evaluate_cascade
from autorubric_cli.core.config import JudgeSpec, LLMConfig
from autorubric_cli.core.evaluate import ScoringRules, evaluate_votes
from autorubric_cli.core.records import CriterionVerdict, Vote
from autorubric_cli.core.rubric import Criterion, CriterionOption, Rubric

MET, UNMET, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS
BINARY = Criterion(name="b", requirement="r")
SCALE = Criterion(
    name="s",
    requirement="r",
    options=[
        CriterionOption(label="low", value=0.0),
        CriterionOption(label="mid", value=0.5),
        CriterionOption(label="high", value=1.0),
        CriterionOption(label="NA", na=True),
    ],
    aggregation="mode",
)


def rules(**grader: object) -> ScoringRules:
    judges = [JudgeSpec(model="m", id=j) for j in ("cheap", "other", "strong")]
    config = LLMConfig(judges=judges, **grader)  # type: ignore[arg-type]
    return ScoringRules.from_rubric(Rubric(criteria=[BINARY, SCALE], grader=config))


def binary(judge: str, *verdicts: CriterionVerdict | None, stage: str = "first") -> list[Vote]:
    return [
        Vote(judge=judge, sample=i, verdict=v, stage=stage)  # type: ignore[arg-type]
        for i, v in enumerate(verdicts)
    ]


def test_a_two_one_split_is_two_thirds() -> None:
    result = escalation(BINARY, binary("cheap", MET, MET, UNMET), rules(), 0.7)
    assert result.agreement == 2 / 3
    assert result.outcome.verdict == MET
    assert result.escalate
    assert not escalation(BINARY, binary("cheap", MET, MET, UNMET), rules(), 0.6).escalate


def test_a_threshold_equal_to_the_agreement_keeps_the_first_stage() -> None:
    votes = binary("cheap", MET, MET, UNMET)
    assert not escalation(BINARY, votes, rules(), 2 / 3).escalate
    assert not escalation(BINARY, votes, rules(), 0.6666666667).escalate  # within 1e-9


def test_agreement_counts_every_judge_and_sample() -> None:
    votes = binary("cheap", MET, UNMET) + binary("other", MET, MET, MET)
    result = escalation(BINARY, votes, rules(), 0.0)
    assert result.agreement == 4 / 5 and result.outcome.verdict == MET


def test_unanimous_at_threshold_one_stays() -> None:
    assert not escalation(BINARY, binary("cheap", UNMET, UNMET, UNMET), rules(), 1.0).escalate
    assert escalation(BINARY, binary("cheap", UNMET, UNMET, MET), rules(), 1.0).escalate


def test_errors_and_abstentions_escalate_even_at_threshold_zero() -> None:
    errored = [*binary("cheap", MET, MET), Vote(judge="cheap", sample=2, error="timeout")]
    assert escalation(BINARY, errored, rules(), 0.0).escalate
    assert escalation(BINARY, binary("cheap", MET, MET, CA), rules(), 0.0).escalate
    na = [Vote(judge="cheap", sample=i, option_index=k) for i, k in enumerate([2, 2, 3])]
    result = escalation(SCALE, na, rules(), 0.0)
    assert result.escalate and result.agreement == 2 / 3


def test_multi_choice_agreement_is_on_the_chosen_option() -> None:
    votes = [Vote(judge="cheap", sample=i, option_index=k) for i, k in enumerate([1, 1, 2, 1])]
    result = escalation(SCALE, votes, rules(), 0.8)
    assert result.outcome.option is not None and result.outcome.option.index == 1
    assert result.agreement == 3 / 4 and result.escalate


def test_the_outcome_follows_the_rubric_aggregation() -> None:
    votes = binary("cheap", MET) + binary("other", UNMET)
    assert escalation(BINARY, votes, rules(aggregation="any"), 0.0).outcome.verdict == MET
    assert escalation(BINARY, votes, rules(aggregation="majority"), 0.0).outcome.verdict == UNMET


def test_an_escalated_criterion_is_decided_by_the_then_stage_alone() -> None:
    first = binary("cheap", MET, MET, UNMET)
    then = binary("strong", UNMET, stage="then")
    scale = [Vote(judge="cheap", sample=i, option_index=2, stage="first") for i in range(3)]
    evaluation = evaluate_cascade([first + then, scale], [True, False], rules(), 0)
    assert evaluation.criteria[0].verdict == UNMET
    assert evaluation.criteria[0].escalated is True
    assert evaluation.criteria[0].votes == first + then
    assert evaluation.criteria[1].escalated is False
    assert evaluation.criteria[1].option is not None and evaluation.criteria[1].option.index == 2
    assert evaluation.score.score == 0.5  # UNMET (10) + high (10): 10 of 20


def test_outside_a_cascade_every_vote_decides() -> None:
    votes = binary("cheap", MET) + binary("strong", UNMET, stage="then")
    assert deciding_votes(votes, None) == votes
    assert deciding_votes(votes, False) == votes[:1]
    assert deciding_votes(votes, True) == votes[1:]


verdicts = st.sampled_from([MET, UNMET, CA, None])


@st.composite
def first_stages(draw: st.DrawFn) -> list[Vote]:
    votes = []
    for judge in draw(st.sampled_from([["cheap"], ["cheap", "other"]])):
        for sample in range(draw(st.integers(1, 5))):
            if draw(st.integers(0, 9)) == 0:
                votes.append(Vote(judge=judge, sample=sample, error="boom"))
            else:
                votes.append(Vote(judge=judge, sample=sample, verdict=draw(verdicts)))
    return votes


@given(first_stages(), st.sampled_from(["majority", "weighted", "unanimous", "any"]))
def test_properties_of_the_rule(votes: list[Vote], method: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scoring = rules(aggregation=method)
        outcome = evaluate_votes([votes, []], scoring, 0).criteria[0]
        at = {t: escalation(BINARY, votes, scoring, t) for t in (0.0, 0.5, 1.0)}
    # the outcome is the ensemble outcome of the rubric's own aggregation
    assert all(r.outcome == outcome for r in at.values())
    # agreement: the share of all samples that chose the outcome, counted independently
    # (an abstaining sample never agrees, even with a CANNOT_ASSESS outcome)
    decided = [v for v in votes if v.error is None and v.verdict in (MET, UNMET)]
    agreeing = sum(v.verdict == outcome.verdict for v in decided)
    assert at[0.0].agreement == float(Fraction(agreeing, len(votes)))
    abstained = any(v.error is not None or v.verdict not in (MET, UNMET) for v in votes)
    # errors and abstentions always escalate; otherwise exactly agreement < T
    for threshold, result in at.items():
        expected = abstained or agreeing / len(votes) < threshold - 1e-9
        assert result.escalate == expected
    # a higher threshold never escalates less
    assert at[0.0].escalate <= at[0.5].escalate <= at[1.0].escalate
