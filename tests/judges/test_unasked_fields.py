"""A reply that fills the asked field validly and an unasked one besides (`selected_option: 1`
beside `criterion_status: "MET"`) is accepted: the asked field decides, the other is ignored,
counted per judge in the report (`judges[].ignored_fields`) and never re-asked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from autorubric_cli.core.records import CriterionVerdict
from autorubric_cli.judges.policy.failures import JudgeFailure
from autorubric_cli.judges.replies import parse_answer
from tests.cli.runner_support import invoke
from tests.support import TEST_KEY_ENV
from tests.support.judge_server import JudgeServer

EVERY_FIELD = {
    "explanation": "all filled",
    "criterion_status": "MET",
    "selected_option": 1,
    "selected_options": [1],
}


def test_the_asked_field_decides_and_the_unasked_ones_are_named() -> None:
    text = json.dumps(EVERY_FIELD)
    binary = parse_answer(text, None, "forced_choice", asked=("criterion_status",))
    assert binary.verdict is CriterionVerdict.MET and binary.shown_position is None
    assert binary.ignored == ("selected_option", "selected_options")
    choice = parse_answer(text, 3, "forced_choice", asked=("selected_option",))
    assert choice.shown_position == 1 and choice.verdict is None
    assert choice.ignored == ("criterion_status", "selected_options")
    exact = {**EVERY_FIELD, "selected_option": None, "selected_options": None}
    assert parse_answer(json.dumps(exact), None, asked=("criterion_status",)).ignored == ()


def test_an_invalid_asked_field_is_still_re_asked() -> None:
    wrong = {**EVERY_FIELD, "criterion_status": None}
    with pytest.raises(JudgeFailure, match="criterion_status"):
        parse_answer(json.dumps(wrong), None, asked=("criterion_status",))


def every_field(body: dict[str, Any]) -> str:
    return json.dumps(EVERY_FIELD)


def test_a_judge_filling_every_field_grades_the_run_and_is_counted(
    tmp_path: Path, judge_api_key: str
) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(f'{{"id": "i{n}", "submission": "answer {n}"}}\n' for n in range(6)))
    out = tmp_path / "exp"
    with JudgeServer(answer=every_field) as server:
        rubric = tmp_path / "r.yaml"
        rubric.write_text(
            "criteria:\n  - name: correct\n    requirement: The answer is correct\n"
            "  - name: clarity\n    requirement: How clear?\n    options:\n"
            "      - {label: Poor, value: 0}\n      - {label: Good, value: 1}\n"
            f"grader:\n  judges:\n    - {{model: openai/literal, api_base: '{server.api_base}', "
            f"api_key_env: {TEST_KEY_ENV}}}\n"
        )
        code, _, stderr = invoke("run", rubric, data, "--out", out, "--format", "json")
        requests = server.request_count
    assert code == 0, stderr
    built = json.loads((out / "report.json").read_text())
    (judge,) = built["judges"]
    assert judge["votes"] == 12 and judge["errors"] == 0 and judge["retries"] == 0
    assert requests == 12  # one call per vote: nothing re-asked
    assert judge["ignored_fields"] == 24  # two unasked fields filled in every reply
    assert built["criteria"][0]["met_rate"] == 1.0
    record = json.loads((out / "items.jsonl").read_text().splitlines()[0])
    fields = {tuple(v["ignored_fields"]) for c in record["criteria"] for v in c["votes"]}
    assert fields == {
        ("selected_option", "selected_options"),
        ("criterion_status", "selected_options"),
    }
