"""The simulated judge errs on vaguely worded criteria (`vague_accuracy`, `vague_pattern`), the
simulated reviser removes that wording, and option descriptions reach the prompt under their
option."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.errors import InputError
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.policy.failures import JudgeFailure
from autorubric_cli.judges.prompts import options_block
from autorubric_cli.judges.request import Call
from autorubric_cli.judges.revision import ReviseRequest, parse_revision
from autorubric_cli.judges.transports.simulated import (
    VAGUE_WORDS,
    SimulatedTransport,
    simulation_params,
)
from autorubric_cli.judges.transports.simulated_reviser import reworded
from tests.support import http_judge, make_item, make_rubric
from tests.support.cli import cli
from tests.support.judge_server import JudgeServer

VAGUE = {"name": "vague", "requirement": "Explains the refund policy appropriately"}
PLAIN = {"name": "plain", "requirement": "States the 30-day refund window"}
SCALE = {
    "name": "tone",
    "requirement": "How is the tone?",
    "options": [
        {"label": "Rude", "value": 0.0, "description": "insults the customer"},
        {"label": "Polite", "value": 1.0, "description": "a good, clear apology"},
    ],
}


def judge(**params: Any) -> dict[str, Any]:
    return {"model": "simulated/j", "params": params}


async def accuracy(criteria: list[dict[str, Any]], n: int = 200, **params: Any) -> dict[str, float]:
    """Each criterion's share of votes equal to the item's ground truth."""
    engine = CriterionGrader(make_rubric([judge(**params)], criteria), seed=1)
    right: dict[str, int] = {c["name"]: 0 for c in criteria}
    for i in range(n):
        truth = {c["name"]: "MET" if i % 2 else "UNMET" for c in criteria if "options" not in c}
        truth |= {c["name"]: "Polite" for c in criteria if "options" in c}
        record = await engine.grade(make_item(f"i{i}", "text", index=i, ground_truth=truth))
        for c in record.criteria:
            label = c.verdict.value if c.verdict else (c.option.label if c.option else None)
            right[c.name] += label == truth[c.name]
    await engine.aclose()
    return {name: count / n for name, count in right.items()}


async def test_a_vaguely_worded_criterion_is_graded_at_vague_accuracy() -> None:
    found = await accuracy([VAGUE, PLAIN, SCALE], accuracy=1.0, vague_accuracy=0.5)
    assert found["plain"] == 1.0
    assert 0.38 < found["vague"] < 0.62  # 200 draws at 0.5
    assert found["tone"] < 0.62  # vague through an option's description, not its label


async def test_without_vague_accuracy_answers_are_unchanged() -> None:
    plain = await accuracy([VAGUE, PLAIN], n=40, accuracy=0.7)
    same = await accuracy([VAGUE, PLAIN], n=40, accuracy=0.7, vague_pattern="refund")
    assert plain == same


async def test_vague_pattern_replaces_the_words() -> None:
    found = await accuracy([VAGUE, PLAIN], accuracy=1.0, vague_accuracy=0.0, vague_pattern="30-day")
    assert found == {"vague": 1.0, "plain": 0.0}


def test_a_bad_pattern_is_an_input_error_naming_the_param() -> None:
    with pytest.raises(InputError) as caught:
        simulation_params(JudgeSpec(model="simulated/j", params={"vague_pattern": "(unclosed"}))
    assert caught.value.key == "params.vague_pattern"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Gives a good, clear explanation of the refund window",
            "Gives an explanation of the refund window",
        ),
        ("Explains the refund policy appropriately.", "Explains the refund policy."),
        ("Gives an appropriate refund within an hour", "Gives a refund within an hour"),
        ("States the 30-day refund window", "States the 30-day refund window"),
        ("Is clear and well organised", "Is organised"),
        ("Good", "Good"),  # nothing would be left: unchanged
    ],
)
def test_the_simulated_reviser_removes_vague_words(text: str, expected: str) -> None:
    assert reworded(text, re.compile(VAGUE_WORDS, re.IGNORECASE)) == expected


async def test_the_simulated_reviser_answers_in_the_revision_schema() -> None:
    criterion = Criterion.model_validate(SCALE | {"requirement": "Is the tone appropriate?"})
    request = ReviseRequest("revise:tone:1", criterion, [{"role": "user", "content": "reword"}])
    transport = SimulatedTransport(JudgeSpec(model="simulated/reviser"))
    completion = await transport.complete(
        Call(request.messages, request.response_format(), request)
    )
    revision = parse_revision(completion.content, criterion)
    assert revision.requirement == "Is the tone?"
    assert [(o.label, o.description) for o in revision.option_descriptions] == [
        ("Rude", "insults the customer"),
        ("Polite", "An apology"),
    ]
    schema = request.response_format()["json_schema"]["schema"]
    assert json.loads(completion.content or "").keys() == schema["properties"].keys()


def test_option_descriptions_are_shown_indented_under_their_option() -> None:
    options = Criterion.model_validate(SCALE).option_list()
    block = options_block(list(reversed(options)))
    assert block == (
        "<options>\n1. Polite\n   a good, clear apology\n"
        "2. Rude\n   insults the customer\n</options>"
    )


def test_a_revision_naming_an_option_the_criterion_lacks_is_re_asked() -> None:
    criterion = Criterion.model_validate(SCALE)
    reply = {"requirement": "r", "option_descriptions": [{"label": "Neutral", "description": "d"}]}
    with pytest.raises(JudgeFailure, match="Neutral"):
        parse_revision(json.dumps(reply), criterion)
    with pytest.raises(JudgeFailure, match="requirement is empty"):
        parse_revision(json.dumps({"requirement": " ", "option_descriptions": []}), criterion)


def test_a_run_with_option_descriptions_reaches_the_loopback_judge(
    judge_server: JudgeServer, judge_api_key: str, tmp_path: Path
) -> None:
    rubric = make_rubric([http_judge(judge_server.api_base)], [SCALE])
    (tmp_path / "r.yaml").write_text(yaml.safe_dump(rubric.model_dump(mode="json")))
    (tmp_path / "d.jsonl").write_text('{"id": "a", "submission": "Sorry!"}\n')
    done = cli("run", tmp_path / "r.yaml", tmp_path / "d.jsonl", "--out", tmp_path / "e")
    assert done.exit_code == 0, done.stderr
    [request] = judge_server.requests
    assert "\n   insults the customer\n" in request.text()
