"""Response-set elicitation end to end: `both` scores like forced choice; sets abstain."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from autorubric_cli.core.evaluate import ScoringRules, evaluate_votes
from autorubric_cli.core.records import CriterionVerdict, ItemRecord
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.policy.retry import RetryPolicy
from tests.support import BINARY, MULTI_CHOICE, http_judge, make_item, make_rubric
from tests.support.judge_server import JudgeServer, schema_properties

FAST = RetryPolicy(base_s=0.001, cap_s=0.005)
PENALTY = {"name": "wrong_claim", "requirement": "Makes a wrong claim", "weight": -5}
NOMINAL = {
    "name": "tone",
    "requirement": "What is the tone?",
    "scale_type": "nominal",
    "options": [
        {"label": "Formal", "value": 1.0},
        {"label": "Casual", "value": 0.5},
        {"label": "Rude", "value": 0.0},
        {"label": "Not text", "na": True},
    ],
}
CRITERIA = [BINARY, PENALTY, MULTI_CHOICE, NOMINAL]
SIMULATED = [
    {"model": "simulated/a", "samples": 3, "params": {"accuracy": 0.6, "abstain_rate": 0.1}},
    {"model": "simulated/b", "weight": 2.0, "params": {"accuracy": 0.8, "abstain_rate": 0.2}},
]
OUTPUT = re.compile(r"<output>\n(.*?)\n</output>", re.DOTALL)
OPTIONS = re.compile(r"<options>\n(.*?)\n</options>", re.DOTALL)


def elicited(criteria: list[dict[str, Any]], elicitation: str) -> list[dict[str, Any]]:
    return [{**c, "elicitation": elicitation} for c in criteria]


def items(n: int) -> list[Any]:
    return [
        make_item(f"r{i}", f"answer {i}", index=i, ground_truth={"quality": "Fair"})
        for i in range(n)
    ]


async def grade_all(
    judges: list[dict[str, Any]], criteria: list[dict[str, Any]], n: int, **grader: Any
) -> tuple[list[ItemRecord], CriterionGrader]:
    engine = CriterionGrader(make_rubric(judges, criteria, **grader), seed=4, retry=FAST)
    records = [await engine.grade(item) for item in items(n)]
    await engine.aclose()
    return records, engine


def forced_part(record: ItemRecord) -> dict[str, Any]:
    """The record without option sets and token counts (the prompts differ in length)."""
    dumped = record.model_dump(exclude={"duration_s", "usage"})
    for criterion in dumped["criteria"]:
        for vote in criterion["votes"]:
            assert vote.pop("usage")["completion_tokens"] > 0  # the prompt: on a request's first
            vote.pop("option_set")
    return dumped


async def test_both_adds_sets_and_scores_exactly_like_forced_choice() -> None:
    forced, _ = await grade_all(SIMULATED, CRITERIA, 12, aggregation="weighted")
    both, engine = await grade_all(
        SIMULATED, elicited(CRITERIA, "both"), 12, aggregation="weighted"
    )
    rules = ScoringRules.from_rubric(engine.rubric)
    sizes = set()
    for before, after in zip(forced, both, strict=True):
        assert forced_part(after) == forced_part(before)
        assert after.score == before.score and after.judge_scores == before.judge_scores
        stripped = [
            [v.model_copy(update={"option_set": None}) for v in c.votes] for c in after.criteria
        ]
        assert evaluate_votes(stripped, rules, 0).score.score == after.score
        for criterion, result in zip(engine.rubric.criteria, after.criteria, strict=True):
            for vote in result.votes:
                assert vote.option_set, (criterion.name, vote)
                assert vote.option_set == sorted(set(vote.option_set))
                sizes.add(len(vote.option_set))
                if criterion.options is None:
                    assert vote.verdict is not None and set(vote.option_set) <= {0, 1}
                else:
                    assert vote.option_index is not None
                    assert vote.option_index in vote.option_set
                    assert max(vote.option_set) < len(criterion.options)
    assert sizes > {1}
    assert len({r.score for r in both}) > 1


def answer_by_output(body: dict[str, Any]) -> str:
    """Answers from the submission and the options shown, whatever the instruction says."""
    user = body["messages"][1]["content"]
    output = OUTPUT.findall(user)[-1]
    h = int.from_bytes(hashlib.sha256(output.encode()).digest()[:4], "big")
    properties = schema_properties(body)  # the fields the prompt asks to fill
    reply: dict[str, Any] = {"explanation": f"by output {h % 97}"}
    shown = OPTIONS.findall(user)
    if shown:
        labels = [line.split(". ", 1)[1] for line in shown[-1].split("\n")]
        wanted = ["Poor", "Fair", "Good", "Excellent"][h % 4]
        chosen = labels.index(wanted) + 1
        if "selected_option" in properties:
            reply["selected_option"] = chosen
        if "selected_options" in properties:
            reply["selected_options"] = sorted({chosen, labels.index("Fair") + 1})
    else:
        status = "MET" if h % 3 else "UNMET"
        if "criterion_status" in properties:
            reply["criterion_status"] = status
        if "selected_options" in properties:
            reply["selected_options"] = [1, 2] if h % 2 else [1 if status == "MET" else 2]
    return json.dumps(reply)


async def test_both_over_http_scores_like_forced_choice_for_the_same_answers(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    server = judge_server_factory(answer=answer_by_output)
    judges = [http_judge(server.api_base, samples=2, sample_request="separate")]
    forced, _ = await grade_all(judges, [BINARY, MULTI_CHOICE], 6)
    both, _ = await grade_all(judges, elicited([BINARY, MULTI_CHOICE], "both"), 6)
    assert server.request_count == 2 * 6 * 2 * 2
    names = {r.body["response_format"]["json_schema"]["name"] for r in server.requests}
    assert names == {  # a local server: each call its own schema, one per kind and elicitation
        "binary_verdict",
        "multi_choice_verdict",
        "binary_verdict_and_set",
        "multi_choice_verdict_and_set",
    }
    texts = [r.text() for r in server.requests]
    for fill, count in [
        ("Fill criterion_status;", 12),
        ("Fill selected_option;", 12),
        ("Fill selected_option and selected_options;", 12),
        ("Fill criterion_status and selected_options;", 12),
    ]:
        assert sum(fill in text for text in texts) == count, fill
    fair = MULTI_CHOICE["options"].index({"label": "Fair", "value": 0.5})
    for before, after in zip(forced, both, strict=True):
        assert forced_part(after) == forced_part(before)
        assert after.score == before.score and after.raw_score == before.raw_score
        binary, multi = after.criteria
        for vote in multi.votes:
            assert vote.option_set == sorted({vote.option_index, fair})
        for vote in binary.votes:
            encoded = 1 if vote.verdict == CriterionVerdict.MET else 0
            assert encoded in (vote.option_set or [])
    assert len({r.score for r in both}) > 1


async def test_response_set_votes_abstain_in_scoring() -> None:
    judges = [{"model": "simulated/a", "params": {"accuracy": 1.0, "set_rate": 0.5}}]
    truth = {"accuracy": "MET", "quality": "Excellent"}
    criteria = [BINARY, {**MULTI_CHOICE, "elicitation": "response_set"}]
    engine = CriterionGrader(make_rubric(judges, criteria), seed=4)
    record = await engine.grade(make_item(ground_truth=truth))
    binary, multi = record.criteria
    assert binary.verdict == CriterionVerdict.MET
    assert multi.option is None and multi.aggregated_value is None
    (vote,) = multi.votes
    assert vote.option_index is None and vote.error is None
    assert vote.option_set is not None and 3 in vote.option_set
    assert record.status == "ok" and record.score == 1.0 and record.raw_score == 10.0
    zero = await CriterionGrader(
        make_rubric(judges, criteria, cannot_assess={"strategy": "zero"}), seed=4
    ).grade(make_item(ground_truth=truth))
    assert zero.score == pytest.approx(0.5) and zero.raw_score == 10.0
    both = await CriterionGrader(make_rubric(judges, elicited(criteria, "both")), seed=4).grade(
        make_item(ground_truth=truth)
    )
    assert both.score == 1.0 and both.raw_score == 20.0


async def test_binary_response_set_is_cannot_assess_with_its_sets_kept() -> None:
    judges = [{"model": f"simulated/{n}", "params": {"accuracy": 1.0}} for n in ("a", "b")]
    criteria = [{**BINARY, "elicitation": "response_set"}, PENALTY]
    engine = CriterionGrader(make_rubric(judges, criteria), seed=4)
    record = await engine.grade(make_item(ground_truth={"accuracy": "UNMET", "wrong_claim": "MET"}))
    sets, penalty = record.criteria
    assert sets.verdict == CriterionVerdict.CANNOT_ASSESS
    assert [v.verdict for v in sets.votes] == [None, None]
    assert all(v.option_set and 0 in v.option_set for v in sets.votes)
    assert penalty.verdict == CriterionVerdict.MET
    assert record.raw_score == -5.0 and record.score == 0.0
    assert record.judge_scores == {"simulated/a": 0.0, "simulated/b": 0.0}


async def test_prior_sets_are_reused_without_new_calls() -> None:
    rubric = make_rubric(SIMULATED, elicited(CRITERIA, "both"))
    engine = CriterionGrader(rubric, seed=4)
    first = await engine.grade(make_item())
    calls = engine.stats.calls_started
    again = await engine.grade(make_item(), prior=first)
    assert engine.stats.calls_started == calls
    assert again.model_dump(exclude={"duration_s"}) == first.model_dump(exclude={"duration_s"})
