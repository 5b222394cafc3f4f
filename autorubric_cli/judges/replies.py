"""The judge's structured reply: JSON schemas sent as `response_format`, and their parsing.

Binary criteria answer `{explanation, criterion_status}`; multi-choice criteria answer
`{explanation, selected_option}` with a 1-based position in the order shown. The explanation
comes first in the schema so that a model writes its reasoning before its verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from autorubric_cli.core.records import CriterionVerdict
from autorubric_cli.judges.failures import JudgeFailure, short

CODE_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?(.*?)\n?```$", re.DOTALL)


class BinaryReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    explanation: str = ""
    criterion_status: CriterionVerdict

    @field_validator("criterion_status", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value


class MultiChoiceReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    explanation: str = ""
    selected_option: int

    @field_validator("selected_option", mode="before")
    @classmethod
    def _not_bool(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("must be an option number, not a boolean")
        return value


@dataclass(frozen=True)
class Answer:
    """A parsed reply: a verdict (binary) or a 1-based shown position (multi-choice)."""

    explanation: str
    verdict: CriterionVerdict | None = None
    shown_position: int | None = None


def binary_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "explanation": {"type": "string"},
            "criterion_status": {"type": "string", "enum": [v.value for v in CriterionVerdict]},
        },
        "required": ["explanation", "criterion_status"],
        "additionalProperties": False,
    }


def multi_choice_schema(option_count: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "explanation": {"type": "string"},
            "selected_option": {"type": "integer", "minimum": 1, "maximum": option_count},
        },
        "required": ["explanation", "selected_option"],
        "additionalProperties": False,
    }


def response_format(option_count: int | None) -> dict[str, Any]:
    """The `response_format` argument: binary when `option_count` is None."""
    if option_count is None:
        name, schema = "binary_verdict", binary_schema()
    else:
        name, schema = "multi_choice_verdict", multi_choice_schema(option_count)
    return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}


def json_text(content: str) -> str:
    """The JSON object in a reply, tolerating a code fence or text around it."""
    text = content.strip()
    fenced = CODE_FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text.startswith("{"):
        start, end = text.find("{"), text.rfind("}")
        if start != -1 and end > start:
            text = text[start : end + 1]
    return text


def parse_failure(detail: str) -> JudgeFailure:
    return JudgeFailure("parse", short(detail), retryable=True)


def validation_detail(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "reply"
    return f"{where}: {first['msg']}"


def parse_answer(content: str | None, option_count: int | None) -> Answer:
    """Validate a reply; raises a retryable `parse` JudgeFailure (the call is re-asked)."""
    if not content or not content.strip():
        raise parse_failure("the reply was empty")
    text = json_text(content)
    try:
        if option_count is None:
            binary = BinaryReply.model_validate_json(text)
            return Answer(binary.explanation, verdict=binary.criterion_status)
        choice = MultiChoiceReply.model_validate_json(text)
    except ValidationError as error:
        raise parse_failure(validation_detail(error)) from None
    if not 1 <= choice.selected_option <= option_count:
        raise parse_failure(
            f"selected_option {choice.selected_option} is outside 1..{option_count}"
        )
    return Answer(choice.explanation, shown_position=choice.selected_option)
