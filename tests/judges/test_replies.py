"""Parsing of the judge's structured reply and the response_format schemas."""

from __future__ import annotations

import json

import pytest

from autorubric_cli.core.records import CriterionVerdict
from autorubric_cli.judges.policy.failures import JudgeFailure
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
    assert multi["properties"]["selected_option"] == {"type": "integer", "enum": [1, 2, 3, 4, 5]}
    assert set(multi["required"]) == {"explanation", "selected_option"}


# -- response-set elicitation ---------------------------------------------------------------


def test_forced_choice_schemas_are_unchanged_by_elicitation() -> None:
    assert response_format(None, "forced_choice") == response_format(None)
    assert response_format(4, "forced_choice") == {
        "type": "json_schema",
        "json_schema": {
            "name": "multi_choice_verdict",
            "strict": True,
            "schema": {
                "type": "object",
                "properties": {
                    "explanation": {"type": "string"},
                    "selected_option": {"type": "integer", "enum": [1, 2, 3, 4]},
                },
                "required": ["explanation", "selected_option"],
                "additionalProperties": False,
            },
        },
    }


@pytest.mark.parametrize(
    ("option_count", "elicitation", "name", "fields", "size"),
    [
        (4, "response_set", "multi_choice_response_set", ["explanation", "selected_options"], 4),
        (None, "response_set", "binary_response_set", ["explanation", "selected_options"], 2),
        (
            4,
            "both",
            "multi_choice_verdict_and_set",
            ["explanation", "selected_option", "selected_options"],
            4,
        ),
        (
            None,
            "both",
            "binary_verdict_and_set",
            ["explanation", "criterion_status", "selected_options"],
            2,
        ),
    ],
)
def test_response_set_schemas(
    option_count: int | None, elicitation: str, name: str, fields: list[str], size: int
) -> None:
    fmt = response_format(option_count, elicitation)  # type: ignore[arg-type]
    assert fmt["json_schema"]["name"] == name and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    assert list(schema["properties"]) == fields
    assert schema["required"] == fields
    assert schema["additionalProperties"] is False
    assert schema["properties"]["selected_options"] == {
        "type": "array",
        "items": {"type": "integer", "enum": list(range(1, size + 1))},
        "minItems": 1,
        "maxItems": size,
    }


def test_response_set_reply_is_a_set_of_shown_positions_without_a_choice() -> None:
    answer = parse_answer(
        '{"explanation": "two fit", "selected_options": [3, 1]}', 4, "response_set"
    )
    assert answer.shown_set == (3, 1)
    assert answer.shown_position is None and answer.verdict is None
    assert answer.explanation == "two fit"


def test_both_reply_has_the_choice_and_the_set() -> None:
    content = '{"explanation": "e", "selected_option": 2, "selected_options": [2, 4]}'
    answer = parse_answer(content, 4, "both")
    assert answer.shown_position == 2 and answer.shown_set == (2, 4)
    binary = '{"explanation": "e", "criterion_status": "unmet", "selected_options": [2, 1]}'
    answer = parse_answer(binary, None, "both")
    assert answer.verdict == CriterionVerdict.UNMET and answer.shown_set == (2, 1)


def test_forced_choice_ignores_a_set_it_did_not_ask_for() -> None:
    content = '{"explanation": "e", "selected_option": 2, "selected_options": []}'
    answer = parse_answer(content, 4)
    assert answer.shown_position == 2 and answer.shown_set is None


@pytest.mark.parametrize(
    ("content", "option_count", "elicitation", "detail"),
    [
        ('{"explanation": "x", "selected_options": []}', 4, "response_set", "is empty"),
        ('{"explanation": "x", "selected_options": [2, 2]}', 4, "response_set", "2 more than once"),
        ('{"explanation": "x", "selected_options": [1, 5]}', 4, "response_set", "5, outside 1..4"),
        ('{"explanation": "x", "selected_options": [0]}', 4, "response_set", "0, outside 1..4"),
        ('{"explanation": "x", "selected_options": [3]}', None, "response_set", "outside 1..2"),
        (
            '{"explanation": "x", "criterion_status": "MET", "selected_options": [1, 1]}',
            None,
            "both",
            "1 more than once",
        ),
        ('{"explanation": "x", "selected_options": [1.5]}', 4, "response_set", "selected_options"),
        ('{"explanation": "x", "selected_options": [true]}', 4, "response_set", "not booleans"),
        ('{"explanation": "x", "selected_options": 2}', 4, "response_set", "selected_options"),
        ('{"explanation": "x", "selected_option": 2}', 4, "response_set", "selected_options"),
        ('{"explanation": "x", "selected_options": [2]}', 4, "both", "selected_option"),
        ('{"explanation": "x", "selected_option": 2}', 4, "both", "selected_options"),
        ('{"explanation": "x", "criterion_status": "MET"}', None, "both", "selected_options"),
        ('{"explanation": "x", "selected_options": [1]}', None, "both", "criterion_status"),
        (
            '{"explanation": "x", "selected_option": 7, "selected_options": [1]}',
            4,
            "both",
            "selected_option 7 is outside 1..4",
        ),
    ],
)
def test_bad_response_sets_are_parse_failures(
    content: str, option_count: int | None, elicitation: str, detail: str
) -> None:
    with pytest.raises(JudgeFailure) as caught:
        parse_answer(content, option_count, elicitation)  # type: ignore[arg-type]
    assert caught.value.category == "parse" and caught.value.retryable
    assert detail in caught.value.detail
