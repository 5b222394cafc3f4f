"""Parsing of the judge's structured reply and the response_format schemas."""

from __future__ import annotations

import json

import pytest

from autorubric_cli.core.records import CriterionVerdict
from autorubric_cli.judges.failures import JudgeFailure
from autorubric_cli.judges.replies import parse_answer, response_format


@pytest.mark.parametrize(
    ("content", "verdict"),
    [
        ('{"explanation": "ok", "criterion_status": "MET"}', CriterionVerdict.MET),
        ('{"criterion_status": " unmet ", "explanation": "no"}', CriterionVerdict.UNMET),
        ('```json\n{"explanation": "?", "criterion_status": "CANNOT_ASSESS"}\n```', None),
        ('Sure! {"explanation": "x", "criterion_status": "MET"} Hope that helps', None),
    ],
)
def test_binary_replies_parse(content: str, verdict: CriterionVerdict | None) -> None:
    answer = parse_answer(content, None)
    assert answer.shown_position is None
    expected = (
        verdict
        or json.loads(content[content.index("{") : content.rindex("}") + 1])["criterion_status"]
    )
    assert answer.verdict == CriterionVerdict(expected)


@pytest.mark.parametrize(
    "content",
    [
        None,
        "",
        "   ",
        "not json {",
        '{"explanation": "x"}',
        '{"explanation": "x", "criterion_status": "MAYBE"}',
        '{"explanation": "x", "criterion_status": 1}',
        "[1, 2]",
    ],
)
def test_unusable_binary_replies_are_parse_failures(content: str | None) -> None:
    with pytest.raises(JudgeFailure) as caught:
        parse_answer(content, None)
    assert caught.value.category == "parse"
    assert caught.value.retryable
    assert caught.value.describe().startswith("parse: ")


def test_multi_choice_reply_is_a_shown_position() -> None:
    answer = parse_answer('{"explanation": "fine", "selected_option": 3}', 4)
    assert answer.shown_position == 3
    assert answer.verdict is None
    assert answer.explanation == "fine"


@pytest.mark.parametrize(
    "content",
    [
        '{"explanation": "x", "selected_option": 0}',
        '{"explanation": "x", "selected_option": 5}',
        '{"explanation": "x", "selected_option": -1}',
        '{"explanation": "x", "selected_option": 2.5}',
        '{"explanation": "x", "selected_option": true}',
        '{"explanation": "x", "selected_option": "two"}',
        '{"explanation": "x", "criterion_status": "MET"}',
    ],
)
def test_out_of_range_or_wrong_options_are_parse_failures(content: str) -> None:
    with pytest.raises(JudgeFailure) as caught:
        parse_answer(content, 4)
    assert caught.value.category == "parse"


def test_out_of_range_message_names_the_range() -> None:
    with pytest.raises(JudgeFailure, match=r"selected_option 9 is outside 1\.\.4"):
        parse_answer('{"explanation": "x", "selected_option": 9}', 4)


def test_response_formats_are_strict_json_schemas() -> None:
    binary = response_format(None)
    assert binary["type"] == "json_schema"
    schema = binary["json_schema"]["schema"]
    assert binary["json_schema"]["strict"] is True
    assert schema["properties"]["criterion_status"]["enum"] == ["MET", "UNMET", "CANNOT_ASSESS"]
    assert schema["additionalProperties"] is False
    multi = response_format(5)["json_schema"]["schema"]
    assert multi["properties"]["selected_option"] == {"type": "integer", "minimum": 1, "maximum": 5}
    assert set(multi["required"]) == {"explanation", "selected_option"}
