"""CriterionGrader combinations: ensemble weights, samples, reuse, cannot-assess, length."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from autorubric_cli.core.evaluate import ScoringRules, evaluate_votes
from autorubric_cli.core.items import Item, Submission
from autorubric_cli.core.records import CriterionVerdict, ItemRecord
from autorubric_cli.core.scoring import length_penalty_amount
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.policy.retry import RetryPolicy
from tests.support import BINARY, MULTI_CHOICE, http_judge, make_item, make_rubric
from tests.support.judge_server import JudgeServer

FAST = RetryPolicy(base_s=0.01, cap_s=0.05)
MET, UNMET, CANNOT = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS
PENALTY = {"name": "wrong_claim", "requirement": "Makes a wrong claim", "weight": -5}


def by_model(answers: dict[str, str]) -> Callable[[dict[str, Any]], str]:
    def answer(body: dict[str, Any]) -> str:
        status = answers[body["model"]]
        return json.dumps(
            {"explanation": f"{body['model']} says {status}", "criterion_status": status}
        )

    return answer


async def grade(rubric_judges: list[dict[str, Any]], item: Any = None, **grader: Any) -> ItemRecord:
    criteria = grader.pop("criteria", None)
    engine = CriterionGrader(make_rubric(rubric_judges, criteria, **grader), seed=5, retry=FAST)
    record = await engine.grade(item or make_item(ground_truth={"accuracy": "MET"}))
    await engine.aclose()
    return record


@pytest.mark.parametrize(
    ("aggregation", "expected"),
    [("majority", MET), ("weighted", UNMET), ("unanimous", UNMET), ("any", MET)],
)
async def test_ensemble_weights_through_the_http_path(
    judge_server_factory: Callable[..., JudgeServer],
    judge_api_key: str,
    aggregation: str,
    expected: CriterionVerdict,
) -> None:
    server = judge_server_factory(answer=by_model({"a": "MET", "b": "MET", "c": "UNMET"}))
    judges = [
        http_judge(server.api_base, "a", weight=1.0),
        http_judge(server.api_base, "b", weight=1.0),
        http_judge(server.api_base, "c", weight=3.0),
    ]
    record = await grade(judges, aggregation=aggregation)
    criterion = record.criteria[0]
    assert criterion.verdict == expected
    assert [v.judge for v in criterion.votes] == ["openai/a", "openai/b", "openai/c"]
    assert record.judge_scores == {"openai/a": 1.0, "openai/b": 1.0, "openai/c": 0.0}
    assert record.score == (1.0 if expected == MET else 0.0)
    assert server.request_count == 3


async def test_samples_are_reduced_per_judge_to_a_real_sample() -> None:
    judge = {"model": "simulated/noisy", "samples": 7, "params": {"accuracy": 0.5, "seed": 2}}
    items = [make_item(f"s{i}", ground_truth={"accuracy": "MET"}) for i in range(8)]
    engine = CriterionGrader(make_rubric([judge]), seed=5)
    saw_split = False
    for item in items:
        record = await engine.grade(item)
        votes = record.criteria[0].votes
        assert [v.sample for v in votes] == list(range(7))
        counts = Counter(v.verdict for v in votes)
        saw_split |= len(counts) > 1
        assert record.criteria[0].verdict == counts.most_common(1)[0][0]
        assert record.criteria[0].reason in {v.reason for v in votes}
    assert saw_split


async def test_prior_votes_are_reused_without_new_requests(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    judges = [http_judge(judge_server.api_base, samples=2)]
    rubric = make_rubric(judges, [BINARY, MULTI_CHOICE])
    engine = CriterionGrader(rubric, seed=9, retry=FAST)
    first = await engine.grade(make_item())
    # the binary criterion's two samples in one request (`n`), the multi-choice one's two
    # (each shown its own option order) in one each
    assert judge_server.request_count == 3
    again = await engine.grade(make_item(), prior=first)
    await engine.aclose()
    assert judge_server.request_count == 3
    assert engine.stats.calls_started == 3
    assert again.model_dump(exclude={"duration_s"}) == first.model_dump(exclude={"duration_s"})


async def test_only_error_votes_are_asked_again(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    judge = http_judge(judge_server.api_base, samples=3, sample_request="separate")
    rubric = make_rubric([judge], max_attempts=1)  # a request per sample: one of them fails
    engine = CriterionGrader(rubric, seed=9, retry=FAST)
    judge_server.script("server_error")
    first = await engine.grade(make_item())
    assert first.status == "error"
    assert first.error is not None and first.error.startswith("1 of 3 votes failed")
    failed = [v.sample for v in first.criteria[0].votes if v.error]
    assert len(failed) == 1
    second = await engine.grade(make_item(), prior=first)
    await engine.aclose()
    assert judge_server.request_count == 4
    assert second.status == "ok" and second.error is None
    kept = [v for v in second.criteria[0].votes if v.sample not in failed]
    assert kept == [v for v in first.criteria[0].votes if v.sample not in failed]


async def test_resumed_answers_do_not_depend_on_request_order(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    rubric = make_rubric([http_judge(judge_server.api_base)], [BINARY, MULTI_CHOICE])
    engine = CriterionGrader(rubric, seed=9, retry=FAST)
    items = [make_item(f"order-{i}", f"text {i}", index=i) for i in range(6)]
    forward = [await engine.grade(item) for item in items]
    backward = [await engine.grade(item) for item in reversed(items)][::-1]
    await engine.aclose()
    for a, b in zip(forward, backward, strict=True):
        assert a.model_dump(exclude={"duration_s"}) == b.model_dump(exclude={"duration_s"})


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [("skip", 1.0), ("zero", 10 / 15), ("partial", 12.5 / 15), ("fail", 10 / 15)],
)
async def test_cannot_assess_strategies(strategy: str, expected: float) -> None:
    criteria = [
        BINARY,
        {"name": "unsure", "requirement": "Cites a source", "weight": 5},
    ]
    judges = [
        {"model": "simulated/a", "params": {"accuracy": 1.0}},
    ]
    item = make_item(ground_truth={"accuracy": "MET", "unsure": "CANNOT_ASSESS"})
    record = await grade(
        judges,
        item,
        criteria=criteria,
        cannot_assess={"strategy": strategy, "partial_credit": 0.5},
    )
    assert record.criteria[1].verdict == CANNOT
    assert record.score == pytest.approx(expected)


async def test_penalty_criterion_and_unnormalized_score() -> None:
    judges = [{"model": "simulated/a", "params": {"accuracy": 1.0}}]
    item = make_item(ground_truth={"accuracy": "MET", "wrong_claim": "MET"})
    normalized = await grade(judges, item, criteria=[BINARY, PENALTY])
    raw = await grade(judges, item, criteria=[BINARY, PENALTY], normalize=False)
    assert normalized.raw_score == 5.0 and normalized.score == pytest.approx(0.5)
    assert raw.score == 5.0


@pytest.mark.parametrize(("apply_to", "words"), [("all", 90), ("output", 60), ("thinking", 30)])
async def test_length_penalty_counts_the_configured_part(apply_to: str, words: int) -> None:
    penalty = {"free_budget": 20, "max_cap": 120, "penalty_at_cap": 0.5, "apply_to": apply_to}
    item = Item(
        id="long",
        index=0,
        line=1,
        submission=Submission(thinking="t " * 30, output="o " * 60),
        ground_truth={"accuracy": "MET"},
    )
    judges = [{"model": "simulated/a", "params": {"accuracy": 1.0}}]
    record = await grade(judges, item, length_penalty=penalty)
    rubric = make_rubric(judges, length_penalty=penalty)
    assert rubric.grader.length_penalty is not None
    amount = length_penalty_amount(words, rubric.grader.length_penalty)
    assert amount > 0
    assert record.length_penalty == pytest.approx(amount)
    assert record.score == pytest.approx(1.0 - amount)
    assert record.raw_score == 10.0


async def test_no_length_penalty_means_none_applied() -> None:
    judges = [{"model": "simulated/a", "params": {"accuracy": 1.0}}]
    item = make_item(output="word " * 10_000, ground_truth={"accuracy": "MET"})
    record = await grade(judges, item)
    assert record.length_penalty == 0.0 and record.score == 1.0


async def test_record_is_what_core_evaluation_gives_for_its_votes() -> None:
    judges = [
        {"model": "simulated/a", "samples": 3, "params": {"accuracy": 0.6}},
        {"model": "simulated/b", "weight": 2.0, "params": {"accuracy": 0.9, "abstain_rate": 0.2}},
    ]
    criteria = [BINARY, PENALTY, MULTI_CHOICE]
    rubric = make_rubric(judges, criteria, aggregation="weighted")
    engine = CriterionGrader(rubric, seed=4)
    rules = ScoringRules.from_rubric(rubric)
    for i in range(10):
        record = await engine.grade(make_item(f"e{i}", ground_truth={"quality": "Fair"}))
        votes = [c.votes for c in record.criteria]
        expected = evaluate_votes(votes, rules, 0)
        assert record.criteria == expected.criteria
        assert record.score == expected.score.score
        assert record.judge_scores == expected.judge_scores
        assert record.usage["prompt_tokens"] == sum(
            v.usage["prompt_tokens"] for vs in votes for v in vs
        )
        assert len(votes[0]) == 4 and len(votes[2]) == 4


async def test_cost_sums_known_costs_only(judge_server: JudgeServer, judge_api_key: str) -> None:
    judges = [
        http_judge(judge_server.api_base, "gpt-4o-mini"),
        http_judge(judge_server.api_base, "unpriced-model"),
    ]
    record = await grade(judges)
    priced, unpriced = record.criteria[0].votes
    assert unpriced.cost is None
    assert priced.cost is not None and priced.cost > 0
    assert record.cost == pytest.approx(priced.cost)
