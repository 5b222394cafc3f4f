"""Hypothesis properties of evaluate_votes: Vote records in, scores out (docs/guides/rubrics.md)."""

from __future__ import annotations

import warnings

from hypothesis import given
from hypothesis import strategies as st

from autorubric_cli.core.config import CannotAssessConfig, JudgeSpec, LengthPenalty, LLMConfig
from autorubric_cli.core.evaluate import ScoringRules, evaluate_votes
from autorubric_cli.core.records import CriterionVerdict, Vote
from autorubric_cli.core.rubric import Criterion, CriterionOption, Rubric

JUDGES = ["j0", "j1", "j2", "j3"]
VERDICTS = [*CriterionVerdict, None]


@st.composite
def rubrics(draw: st.DrawFn) -> ScoringRules:
    criteria = []
    for i in range(draw(st.integers(1, 4))):
        weight = draw(st.sampled_from([10.0, -15.0, 3.0, -1.0, 0.5]))
        kind = draw(st.sampled_from(["binary", "ordinal", "nominal"]))
        if kind == "binary":
            aggregation = draw(st.sampled_from(["majority", "weighted", "unanimous", "any"]))
            criteria.append(
                Criterion(name=f"c{i}", requirement="r", weight=weight, aggregation=aggregation)
            )
            continue
        values = draw(st.lists(st.integers(0, 10).map(lambda k: k / 10), min_size=2, max_size=5))
        options = [CriterionOption(label=f"o{k}", value=x) for k, x in enumerate(values)]
        if draw(st.booleans()):
            options.append(CriterionOption(label="NA", na=True))
        methods = (
            ["mean", "median", "weighted_mean", "mode", "min", "max"]
            if kind == "ordinal"
            else ["mode", "weighted_mode", "unanimous"]
        )
        criteria.append(
            Criterion(
                name=f"c{i}",
                requirement="r",
                weight=weight,
                scale_type=kind,
                options=options,
                aggregation=draw(st.sampled_from(methods)),
            )
        )
    judges = [
        JudgeSpec(model="m", id=j, weight=draw(st.sampled_from([0.5, 1.0, 2.0]))) for j in JUDGES
    ]
    penalty = draw(
        st.none() | st.builds(LengthPenalty, free_budget=st.just(10), max_cap=st.just(30))
    )
    grader = LLMConfig(
        judges=judges,
        sample_aggregation=draw(st.sampled_from(["majority", "median", "mean"])),
        cannot_assess=CannotAssessConfig(
            strategy=draw(st.sampled_from(["skip", "zero", "partial", "fail"]))
        ),
        length_penalty=penalty,
    )
    return ScoringRules.from_rubric(Rubric(criteria=criteria, grader=grader))


@st.composite
def votes_for(draw: st.DrawFn, criterion: Criterion) -> list[list[Vote]]:
    """Per judge, a list of samples (possibly errored or abstaining)."""
    groups = []
    for judge in JUDGES:
        samples = []
        for s in range(draw(st.integers(0, 3))):
            error = draw(st.sampled_from([None, None, None, "timeout"]))
            if criterion.options is None:
                samples.append(
                    Vote(
                        judge=judge, sample=s, verdict=draw(st.sampled_from(VERDICTS)), error=error
                    )
                )
            else:
                index = draw(st.none() | st.integers(0, len(criterion.options) - 1))
                samples.append(Vote(judge=judge, sample=s, option_index=index, error=error))
        groups.append(samples)
    return groups


@st.composite
def cases(draw: st.DrawFn):
    rules = draw(rubrics())
    groups = [draw(votes_for(c)) for c in rules.criteria]
    order = draw(st.permutations(range(len(JUDGES))))
    words = draw(st.integers(0, 40))
    return rules, groups, order, words


def flatten(groups: list[list[Vote]], order) -> list[Vote]:
    return [vote for j in order for vote in groups[j]]


def run(rules, groups, order, words):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_votes([flatten(g, order) for g in groups], rules, words)


@given(case=cases())
def test_judge_order_never_changes_the_result(case) -> None:
    rules, groups, order, words = case
    first = run(rules, groups, range(len(JUDGES)), words)
    second = run(rules, groups, order, words)
    for a, b in zip(first.criteria, second.criteria, strict=True):
        assert a.verdict == b.verdict
        assert a.option == b.option
        assert a.agreement == b.agreement
        assert (a.aggregated_value is None) == (b.aggregated_value is None)
        if a.aggregated_value is not None:
            assert abs(a.aggregated_value - b.aggregated_value) <= 1e-9
    assert first.score.score == second.score.score or (
        abs(first.score.score - second.score.score) <= 1e-9
    )
    assert first.judge_scores == second.judge_scores


@given(case=cases())
def test_item_and_judge_scores_in_unit_interval(case) -> None:
    rules, groups, order, words = case
    result = run(rules, groups, order, words)
    for score in [result.score.score, *result.judge_scores.values()]:
        assert score is None or 0.0 <= score <= 1.0
    for record in result.criteria:
        assert record.agreement is None or 0.0 <= record.agreement <= 1.0
        if record.option is not None and not record.option.na:
            assert record.verdict is None
        kept_any = any(
            v.error is None and (v.verdict in (CriterionVerdict.MET, CriterionVerdict.UNMET))
            for v in record.votes
        )
        if record.option is None and record.verdict is not None:
            assert (record.verdict == CriterionVerdict.CANNOT_ASSESS) == (not kept_any)
