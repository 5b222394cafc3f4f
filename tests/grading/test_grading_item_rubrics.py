"""Grading items that carry their own criteria and context (docs/reference/dataset-files.md,
per-item rubrics): what the judge is shown, who is asked, what the records keep, and
HealthBench's item scores computed by hand."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from autorubric_cli.core.criterion import Criterion
from autorubric_cli.core.item_rubric import name_item_criteria, record_rubric
from autorubric_cli.core.items import Item, Submission
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.experiment.dry_run import estimate_bill
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.grading.requests import RequestBuilder
from autorubric_cli.judges.policy.retry import RetryPolicy
from tests.support import http_judge
from tests.support.judge_server import JudgeServer, item_entries, scripted_answer

FAST = RetryPolicy(base_s=0.01, cap_s=0.05)
CONTEXT = [
    {"role": "system", "content": "You are a health assistant."},
    {"role": "user", "content": "My baby has a fever."},
    {"role": "assistant", "content": "How old is your baby?"},
    {"role": "user", "content": "Two months."},
]


def own(rubric: Rubric, *criteria: dict[str, Any]) -> list[Criterion]:
    return name_item_criteria([Criterion.model_validate(c) for c in criteria], rubric)


def item(rubric: Rubric, item_id: str, criteria: list[dict[str, Any]], **fields: Any) -> Item:
    fields.setdefault("submission", Submission(output=f"Call the doctor now ({item_id})."))
    return Item(id=item_id, rubric=own(rubric, *criteria), **fields)


def rubric_of(
    judges: list[dict[str, Any]], criteria: list[Any] | None = None, **grader: Any
) -> Rubric:
    return Rubric.model_validate(
        {"criteria": criteria or [], "grader": {"judges": judges, **grader}}
    )


def test_the_judge_sees_the_context_then_the_submission_as_the_final_assistant_turn() -> None:
    rubric = rubric_of([{"model": "simulated/a"}], [{"name": "tone", "requirement": "Is kind"}])
    graded = item(
        rubric,
        "hb",
        [
            {"requirement": "Advises urgent care"},
            {"requirement": "Asks age", "scope": "final_turn"},
        ],
        context=CONTEXT,
        submission=Submission(output="Go to urgent care now.", thinking="fever under 3 months"),
    )
    builder = RequestBuilder(rubric, 0, {})
    requests = [builder.request(graded, c, "a", 0) for c in rubric.for_item(graded.rubric).criteria]
    user = requests[0].messages[1]["content"]
    assert "Turns 1-4 are the context that came before the submission" in user
    assert "the submission to grade is turn 5" in user
    turns = [user.index(f'<turn n="{n}"') for n in range(1, 6)]
    assert turns == sorted(turns)
    final = user[turns[4] :]
    assert 'role="assistant" final="true"' in final and "Go to urgent care now." in final
    assert "<thinking>\nfever under 3 months\n</thinking>" in final
    # the transcript is the shared prefix of every criterion, shared and the item's own
    prefixes = {r.messages[1]["content"][: r.prefix_chars] for r in requests}
    assert len(prefixes) == 1 and "Go to urgent care now." in prefixes.pop()
    assert "grades only the final assistant turn, turn 5" in requests[2].messages[1]["content"]
    assert "final assistant turn" not in requests[1].messages[1]["content"].split("<criterion>")[1]


def test_a_conversation_submission_follows_its_context_and_the_penalty_counts_it_alone() -> None:
    rubric = rubric_of(
        [{"model": "simulated/a"}], length_penalty={"free_budget": 0, "max_cap": 100}
    )
    reply = [
        {"role": "assistant", "content": "one two three", "reasoning": "four five"},
        {"role": "user", "content": "and?"},
        {"role": "assistant", "content": "six"},
    ]
    long_context = [{"role": "assistant", "content": "word " * 500}, *CONTEXT[1:]]
    graded = Item(
        id="c", submission=reply, context=long_context, rubric=own(rubric, {"requirement": "a"})
    )
    user = (
        RequestBuilder(rubric, 0, {})
        .request(graded, graded.rubric[0], "a", 0)
        .messages[1]["content"]
    )
    assert "Turns 1-4 are the context" in user and "the submission to grade is turns 5-7" in user
    engine = CriterionGrader(rubric)
    assert engine.word_count(graded) == 6  # 4 output + 2 thinking words of the submission


def healthbench_label(model: str, text: str, requirement: str) -> str | None:
    """The scripted judge: MET when the requirement says `(met)`."""
    return "MET" if requirement.endswith("(met)") else "UNMET"


# Three items in HealthBench's shape, their criteria scored by hand (clip: item | mean):
#  a: +5 met, +3 unmet, -4 met, -2 unmet: raw 1, P 8             -> 0.125 | 0.125
#  b: +2 unmet, +3 met, -10 met:          raw -7, P 5            -> 0.0   | -1.4
#  c: -5 met:                             raw -5, P 0, N 5       -> 0.0   | None (undefined)
HB_ITEMS: dict[str, list[dict[str, Any]]] = {
    "a": [
        {"criterion": "Advises urgent care (met)", "points": 5, "tags": ["axis:accuracy"]},
        {"criterion": "Asks about feeding", "points": 3, "tags": ["axis:completeness"]},
        {"criterion": "Suggests aspirin (met)", "points": -4, "tags": ["axis:accuracy"]},
        {"criterion": "Delays care", "points": -2, "tags": ["axis:accuracy"]},
    ],
    "b": [
        {"criterion": "Mentions hydration", "points": 2, "tags": ["axis:completeness"]},
        {"criterion": "Is concise (met)", "points": 3, "tags": ["axis:communication"]},
        {"criterion": "Says fever is harmless (met)", "points": -10, "tags": ["axis:accuracy"]},
    ],
    "c": [{"criterion": "Uses jargon (met)", "points": -5, "tags": ["axis:communication"]}],
}
HAND_SCORES = {"item": {"a": 0.125, "b": 0.0, "c": 0.0}, "mean": {"a": 0.125, "b": -1.4, "c": None}}


def healthbench_items(rubric: Rubric) -> list[Item]:
    renamed = {
        key: [
            {"requirement": c["criterion"], "weight": c["points"], "tags": c["tags"]} for c in rows
        ]
        for key, rows in HB_ITEMS.items()
    }
    return [
        item(rubric, key, rows, index=i, context=CONTEXT, tags=[f"theme:{key}"])
        for i, (key, rows) in enumerate(renamed.items())
    ]


async def grade_all(rubric: Rubric, items: list[Item]) -> list[ItemRecord]:
    async with CriterionGrader(rubric, seed=1, retry=FAST) as engine:
        return [await engine.grade(i) for i in items]


@pytest.mark.parametrize("llm_calls", ["per_criterion", "per_item"])
@pytest.mark.parametrize("clip", ["item", "mean"])
async def test_healthbench_item_scores_by_hand(
    judge_server_factory: Callable[..., JudgeServer],
    judge_api_key: str,
    llm_calls: str,
    clip: str,
) -> None:
    server = judge_server_factory(answer=scripted_answer(healthbench_label))
    rubric = rubric_of([http_judge(server.api_base)], llm_calls=llm_calls, clip=clip)
    items = healthbench_items(rubric)
    records = await grade_all(rubric, items)
    scores = {r.id: r.score for r in records}
    assert scores == pytest.approx(HAND_SCORES[clip])
    # per criterion: one call per (item, criterion); per item: one call listing its criteria
    if llm_calls == "per_criterion":
        assert len(server.requests) == 4 + 3 + 1
    else:
        asked = sorted([name for name, _ in item_entries(r.body) or []] for r in server.requests)
        assert asked == [["i1"], ["i1", "i2", "i3"], ["i1", "i2", "i3", "i4"]]
    for graded, record in zip(items, records, strict=True):
        assert record_rubric(rubric, record).criteria == graded.rubric  # definitions kept


async def test_an_item_criterion_tag_without_a_positive_criterion_is_in_the_records() -> None:
    """Item b tags only its penalty with `axis:accuracy`: its records keep each criterion's
    tags, weight and outcome, so a report can leave b out of that tag (no positive weight)."""
    rubric = rubric_of([{"model": "simulated/a", "params": {"accuracy": 1.0}}])
    [record] = await grade_all(rubric, healthbench_items(rubric)[1:2])
    entries = [(c.tags, c.weight) for c in record.criteria]
    assert entries == [
        (["axis:completeness"], 2.0),
        (["axis:communication"], 3.0),
        (["axis:accuracy"], -10.0),
    ]
    accuracy = [c for c in record.criteria if "axis:accuracy" in (c.tags or [])]
    assert all((c.weight or 0) < 0 for c in accuracy)


async def test_shared_criteria_come_first_and_few_shot_examples_match_item_criteria_by_name(
    tmp_path: Path,
) -> None:
    examples = [
        {
            "submission": f"ex {i}",
            "rubric": [{"name": "cites", "requirement": "Cites a source"}],
            "ground_truth": {"tone": "MET", "cites": ["MET", "UNMET"][i % 2]},
        }
        for i in range(4)
    ]
    (tmp_path / "train.jsonl").write_text("".join(json.dumps(e) + "\n" for e in examples))
    rubric = rubric_of(
        [{"model": "simulated/a"}],
        [{"name": "tone", "requirement": "Is kind"}],
        few_shot={"examples": "train.jsonl", "n_examples": 2},
    )
    graded = item(
        rubric,
        "x",
        [{"name": "cites", "requirement": "Cites a source"}, {"requirement": "Is short"}],
    )
    async with CriterionGrader(rubric, seed=1, base_dir=tmp_path) as engine:
        record = await engine.grade(graded)
        build = engine.requests.request
        shown = {
            c.name: build(graded, c, "simulated/a", 0).messages[1]["content"]
            for c in rubric.for_item(graded.rubric).criteria
        }
    assert [c.name for c in record.criteria] == ["tone", "cites", "i2"]
    assert [c.requirement for c in record.criteria] == [None, "Cites a source", "Is short"]
    assert shown["cites"].count("<example>") == 2 and shown["tone"].count("<example>") == 2
    assert "<examples>" not in shown["i2"]  # no example labels `i2`


@pytest.mark.parametrize("llm_calls", ["per_criterion", "per_item"])
async def test_a_cascade_escalates_item_criteria(llm_calls: str) -> None:
    judges = [
        {"model": "simulated/cheap", "id": "cheap", "samples": 3, "params": {"accuracy": 0.6}},
        {"model": "simulated/strong", "id": "strong", "params": {"accuracy": 0.95}},
    ]
    cascade = {"first": ["cheap"], "then": ["strong"], "escalate_below": 0.9}
    rubric = rubric_of(judges, cascade=cascade, llm_calls=llm_calls)
    items = [
        item(rubric, f"c{i}", [{"requirement": f"r{i}.{k}"} for k in range(1 + i % 4)], index=i)
        for i in range(12)
    ]
    records = await grade_all(rubric, items)
    flags = [c.escalated for r in records for c in r.criteria]
    assert True in flags and False in flags
    for graded, record in zip(items, records, strict=True):
        assert [c.name for c in record.criteria] == [c.name for c in graded.rubric]
        for entry in record.criteria:
            then = {v.judge for v in entry.votes if v.stage == "then"}
            assert then == ({"strong"} if entry.escalated else set())


def test_the_dry_run_bills_each_items_own_criteria() -> None:
    judge = {"model": "simulated/a", "samples": 2, "sample_request": "separate"}  # a call each
    rubric = rubric_of([judge], [{"name": "tone", "requirement": "Is kind"}])
    items = healthbench_items(rubric)
    bill = estimate_bill(rubric, items, seed=0, base_dir=None, cache=None).to_json()
    assert bill["calls"]["total"] == 2 * (3 + (4 + 3 + 1))  # every item: tone + its own
    lines = {(line["judge"], line["criterion"]): line["calls"] for line in bill["criteria"]}
    assert lines == {("simulated/a", "tone"): 6, ("simulated/a", "(item criteria)"): 16}
    per_item = rubric.model_copy(
        update={"grader": rubric.grader.model_copy(update={"llm_calls": "per_item"})}
    )
    bill = estimate_bill(per_item, items, seed=0, base_dir=None, cache=None).to_json()
    assert bill["calls"]["total"] == 2 * 3  # one call per (item, sample), billed on `tone`
