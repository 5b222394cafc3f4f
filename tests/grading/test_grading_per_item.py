"""Per-item mode below the CLI: few-shot examples of whole items, reply parsing, the simulated
judge answering per-item prompts exactly as per-criterion ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from autorubric_cli.core.rubric import Criterion
from autorubric_cli.errors import InputError
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.per_item.asked import AskedCriterion
from autorubric_cli.judges.per_item.replies import parse_item_reply
from autorubric_cli.judges.policy.failures import JudgeFailure
from tests.support import BINARY, MULTI_CHOICE, make_item, make_rubric


def write_examples(path: Path) -> Path:
    rows = [
        {
            "submission": f"example answer {i}",
            "ground_truth": {
                "accuracy": ["MET", "UNMET"][i % 2],
                "quality": ["Poor", "Good"][i % 2],
            },
            "metadata": {"reasons": {"accuracy": f"reason {i}"}},
        }
        for i in range(6)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_few_shot_examples_show_whole_items_in_per_item_prompts(tmp_path: Path) -> None:
    write_examples(tmp_path / "train.jsonl")
    few_shot = {"examples": "train.jsonl", "n_examples": 2, "include_reason": True}
    rubric = make_rubric(
        [{"model": "simulated/a"}], [BINARY, MULTI_CHOICE], few_shot=few_shot, llm_calls="per_item"
    )
    grader = CriterionGrader(rubric, seed=3, base_dir=tmp_path)
    assert grader.per_item is not None
    request = grader.per_item.request(make_item(), rubric.criteria, judge_id="a", sample=0)
    user = request.messages[1]["content"]
    examples = user[user.index("<examples>") : user.index("</examples>")]
    assert examples.count("<example>") == 2
    # balanced: the two examples cover both labels of both criteria, each with every verdict
    for answer in ('"accuracy": MET\n"quality": Poor', '"accuracy": UNMET\n"quality": Good'):
        assert answer in examples
    assert '"accuracy": reason' in examples and '"quality": reason' not in examples
    follow_up = grader.per_item.request(make_item(), rubric.criteria[1:], judge_id="a", sample=0)
    text = follow_up.messages[1]["content"]
    assert '"quality": Good' in text and '"accuracy"' not in text


def test_system_prompt_overrides_are_refused_in_per_item_mode() -> None:
    rubric = make_rubric([{"model": "simulated/a"}], system_prompt="x", llm_calls="per_item")
    with pytest.raises(InputError, match="item_system_prompt"):
        CriterionGrader(rubric, seed=0)


async def test_the_simulated_judge_gives_the_same_votes_in_both_modes() -> None:
    criteria = [BINARY, {**MULTI_CHOICE, "elicitation": "both"}]
    judges = [{"model": "simulated/a", "samples": 3, "params": {"accuracy": 0.5}}]
    votes = []
    for mode in ("per_criterion", "per_item"):
        grader = CriterionGrader(make_rubric(judges, criteria, llm_calls=mode), seed=5)
        records = [await grader.grade(make_item(f"i{i}")) for i in range(8)]
        votes.append(
            [
                (v.verdict, v.option_index, v.shuffle_order, v.option_set, v.reason)
                for r in records
                for c in r.criteria
                for v in c.votes
            ]
        )
        await grader.aclose()
    assert votes[0] == votes[1]
    assert len({v[:2] for v in votes[0]}) > 2


def asked() -> list[AskedCriterion]:
    binary = Criterion.model_validate(BINARY)
    multi = Criterion.model_validate(MULTI_CHOICE)
    return [
        AskedCriterion(binary),
        AskedCriterion(multi, shuffle_order=[2, 0, 1, 3][: len(multi.options or [])]),
    ]


def entry(name: str, **answer: Any) -> dict[str, Any]:
    return {"criterion": name, "explanation": "e", **answer}


def reply(*entries: dict[str, Any]) -> str:
    return json.dumps({"criteria": list(entries)})


def test_item_reply_keeps_valid_entries_and_names_the_others() -> None:
    both = asked()
    n = both[1].option_count
    ok = parse_item_reply(reply(entry("accuracy", criterion_status="met")), both)
    assert ok.answers["accuracy"].verdict == "MET"
    assert ok.problems == {"quality": "the reply has no entry for this criterion"}
    twice = parse_item_reply(
        reply(
            entry("accuracy", criterion_status="MET"),
            entry("quality", selected_option=1),
            entry("quality", selected_option=2),
            entry("unknown", selected_option=1),
        ),
        both,
    )
    assert twice.problems == {"quality": "the reply has 2 entries for this criterion"}
    out = parse_item_reply(
        "```json\n"
        + reply(
            entry("quality", selected_option=n + 1), entry("accuracy", criterion_status="UNMET")
        )
        + "\n```",
        both,
    )
    assert out.problems == {"quality": f"selected_option {n + 1} is outside 1..{n}"}
    assert out.answers["accuracy"].verdict == "UNMET"


@pytest.mark.parametrize(
    "content",
    [
        "",
        "not json",
        "[]",
        '{"criteria": {}}',
        reply(),
        reply(entry("accuracy", criterion_status="X")),
    ],
)
def test_an_item_reply_with_no_usable_entry_is_a_retryable_parse_failure(content: str) -> None:
    with pytest.raises(JudgeFailure) as raised:
        parse_item_reply(content, asked())
    assert raised.value.category == "parse" and raised.value.retryable
