"""The judge's structured reply: JSON schemas sent as `response_format`, and their parsing.

Binary criteria answer `{explanation, criterion_status}`; multi-choice criteria answer
`{explanation, selected_option}` with a 1-based position in the order shown. The explanation
comes first in the schema so that a model writes its reasoning before its verdict.

Every schema is one a grammar-constrained decoder (llama.cpp's servers, vLLM's guided decoding,
Ollama's `format`) can enforce as it stands: no type unions (`["string", "null"]`, which
llama.cpp's schema-to-grammar ignores; `anyOf` instead), and a call's own schema
(`response_format`) has only the fields it asks for, each required and non-null, positions as an
integer `enum` of the shown positions (llama.cpp ignores integer bounds), sets bounded by
`minItems`/`maxItems`. The one schema shared by every per-criterion call (`shared_schema`, its
unasked fields null) is sent only to providers whose prompt cache covers the schema
(`prompt_caching.shares_schema`); the prompt's last line names the fields to fill either way.

Response-set elicitation (`Criterion.elicitation`) changes the schema, never the scoring:

- `forced_choice` (default): the schemas above, unchanged.
- `response_set`: `{explanation, selected_options}` only: every option the judge finds
  reasonable, as 1-based positions. The vote then has no forced choice and abstains in scoring.
- `both`: ONE call answering `{explanation, selected_option | criterion_status,
  selected_options}`; the forced choice is scored as usual and the set is kept beside it.

A binary criterion's options for the set are shown numbered in a fixed order, never shuffled:
1. MET, 2. UNMET (`BINARY_SET_LABELS`). `selected_options` must be a non-empty list of in-range
integers without duplicates; anything else is a retryable `parse` failure, re-asked like an
out-of-range `selected_option`. (`uniqueItems` is not in the schema: OpenAI's strict mode does
not accept it, so duplicates are caught here.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from autorubric_cli.core.records import CriterionVerdict
from autorubric_cli.core.rubric import Elicitation
from autorubric_cli.judges.policy.failures import JudgeFailure, short
from autorubric_cli.judges.policy.kinds import FailureKind

CODE_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?(.*?)\n?```$", re.DOTALL)

BINARY_SET_LABELS = (CriterionVerdict.MET.value, CriterionVerdict.UNMET.value)
"""A binary criterion's options as numbered for a response set: 1. MET, 2. UNMET."""
BINARY_SET_ORDER = [1, 0]
"""Shown position p (1-based) of a binary set -> index in the report's binary encoding
(0 = UNMET, 1 = MET), used like a shuffle order: `BINARY_SET_ORDER[p - 1]`."""


class Reply(BaseModel):
    """What every reply carries; fields a reply adds beyond its kind's are ignored."""

    model_config = ConfigDict(extra="ignore")

    explanation: str = ""


class BinaryReply(Reply):
    criterion_status: CriterionVerdict

    @field_validator("criterion_status", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value


class MultiChoiceReply(Reply):
    selected_option: int

    @field_validator("selected_option", mode="before")
    @classmethod
    def _not_bool(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("must be an option number, not a boolean")
        return value


class AffectedReply(Reply):
    """A reply that also names the criteria it is about (`grader.affected_criteria`)."""

    affected_criteria: list[str] | None = None


class ResponseSetReply(Reply):
    selected_options: list[int]

    @field_validator("selected_options", mode="before")
    @classmethod
    def _no_bools(cls, value: Any) -> Any:
        if isinstance(value, list) and any(isinstance(v, bool) for v in value):
            raise ValueError("must be option numbers, not booleans")
        return value


@dataclass(frozen=True)
class Answer:
    """A parsed reply: a verdict (binary) or a 1-based shown position (multi-choice), and/or
    the 1-based shown positions of a response set (`shown_set`, in the judge's order)."""

    explanation: str
    verdict: CriterionVerdict | None = None
    shown_position: int | None = None
    shown_set: tuple[int, ...] | None = None
    ignored: tuple[str, ...] = ()  # unasked reply fields the judge filled anyway (not used)
    affected: tuple[str, ...] | None = None  # `affected_criteria`, when the call asked for it


def set_size(option_count: int | None) -> int:
    """How many options a response set chooses from: the shown options, or MET/UNMET."""
    return len(BINARY_SET_LABELS) if option_count is None else option_count


EXPLANATION = {"explanation": {"type": "string"}}


def strict_object(properties: dict[str, Any]) -> dict[str, Any]:
    """A JSON object schema: `properties`, every one required and no other allowed."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def json_schema_format(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The `response_format` argument for a strict JSON schema."""
    return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}


SCHEMA_NAMES: dict[tuple[bool, Elicitation], str] = {
    (False, "forced_choice"): "binary_verdict",
    (True, "forced_choice"): "multi_choice_verdict",
    (False, "response_set"): "binary_response_set",
    (True, "response_set"): "multi_choice_response_set",
    (False, "both"): "binary_verdict_and_set",
    (True, "both"): "multi_choice_verdict_and_set",
}


def positions(count: int) -> dict[str, Any]:
    """A 1-based position among `count` shown, as an enum a grammar enforces."""
    return {"type": "integer", "enum": list(range(1, count + 1))}


def response_format(
    option_count: int | None, elicitation: Elicitation = "forced_choice"
) -> dict[str, Any]:
    """The `response_format` argument of a call asking for one criterion's fields only: binary
    when `option_count` is None. Its properties, in order: the explanation, the forced choice
    (unless `response_set`), the set (unless `forced_choice`); every one required, none null."""
    properties: dict[str, Any] = dict(EXPLANATION)
    if elicitation != "response_set" and option_count is None:
        statuses = [v.value for v in CriterionVerdict]
        properties["criterion_status"] = {"type": "string", "enum": statuses}
    elif elicitation != "response_set":
        assert option_count is not None
        properties["selected_option"] = positions(option_count)
    if elicitation != "forced_choice":
        size = set_size(option_count)
        properties["selected_options"] = {
            "type": "array",
            "items": positions(size),
            "minItems": 1,
            "maxItems": size,
        }
    name = SCHEMA_NAMES[(option_count is not None, elicitation)]
    return json_schema_format(name, strict_object(properties))


AFFECTED = "affected_criteria"
"""A reply field some calls add (`grader.affected_criteria`, used by `review`'s meta-rubric):
the names of the criteria (of the rubric under review) the answer is about."""


def with_affected(response_format: dict[str, Any]) -> dict[str, Any]:
    """`response_format` whose schema also requires `affected_criteria`, a list of names."""
    schema = response_format["json_schema"]["schema"]
    names = {"type": "array", "items": {"type": "string"}}
    extended = strict_object({**schema["properties"], AFFECTED: names})
    return json_schema_format(response_format["json_schema"]["name"], extended)


ASKED_FIELDS: dict[tuple[bool, Elicitation], tuple[str, ...]] = {
    (False, "forced_choice"): ("criterion_status",),
    (True, "forced_choice"): ("selected_option",),
    (False, "response_set"): ("selected_options",),
    (True, "response_set"): ("selected_options",),
    (False, "both"): ("criterion_status", "selected_options"),
    (True, "both"): ("selected_option", "selected_options"),
}
"""The reply fields a criterion's call fills (the others are null); named in its last line."""

SHARED_SCHEMA_NAME = "criterion_verdict"
REPLY_FIELDS = ("criterion_status", "selected_option", "selected_options")


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` or null, as `anyOf` (a grammar enforces it; a type union it may ignore)."""
    return {"anyOf": [schema, {"type": "null"}]}


def shared_schema() -> dict[str, Any]:
    """One schema admitting every criterion kind and elicitation; unused fields are null.

    Every per-criterion call to a judge whose provider caches the schema with the prompt
    sends this same schema, so it never breaks the prefix that provider caches (OpenAI counts
    the schema in the prefix; a changed schema invalidates an Anthropic cache). Bounds that
    differ per criterion (option count) are checked in `parse_answer`, together with which
    fields must be filled and which must be null."""
    statuses: list[Any] = [v.value for v in CriterionVerdict]
    return strict_object(
        {
            **EXPLANATION,
            "criterion_status": nullable({"type": "string", "enum": statuses}),
            "selected_option": nullable({"type": "integer"}),
            "selected_options": nullable({"type": "array", "items": {"type": "integer"}}),
        }
    )


def shared_response_format() -> dict[str, Any]:
    """The `response_format` of every per-criterion call that shares one schema."""
    return json_schema_format(SHARED_SCHEMA_NAME, shared_schema())


def criterion_response_format(
    option_count: int | None, elicitation: Elicitation, shared: bool
) -> dict[str, Any]:
    """A per-criterion call's `response_format`: the shared one, or the call's own."""
    return shared_response_format() if shared else response_format(option_count, elicitation)


def unasked_filled(text: str, asked: tuple[str, ...]) -> tuple[str, ...]:
    """The reply fields set although the criterion did not ask for them (in schema order)."""
    try:
        reply = orjson.loads(text)
    except orjson.JSONDecodeError:
        return ()  # reported by the model validation
    if not isinstance(reply, dict):
        return ()
    return tuple(f for f in REPLY_FIELDS if f not in asked and reply.get(f) is not None)


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
    return JudgeFailure(FailureKind.PARSE, short(detail))


def checked_set(positions: list[int], size: int) -> tuple[int, ...]:
    """A response set's positions, or a parse failure: empty, out of range or repeated."""
    if not positions:
        raise parse_failure("selected_options is empty; list at least one option")
    for position in positions:
        if not 1 <= position <= size:
            raise parse_failure(f"selected_options has {position}, outside 1..{size}")
    repeated = sorted({p for p in positions if positions.count(p) > 1})
    if repeated:
        raise parse_failure(f"selected_options lists {repeated[0]} more than once")
    return tuple(positions)


def parse_answer(
    content: str | None,
    option_count: int | None,
    elicitation: Elicitation = "forced_choice",
    asked: tuple[str, ...] | None = None,
    affected: bool = False,
) -> Answer:
    """Validate a reply; raises a retryable `parse` JudgeFailure (the call is re-asked).

    Fields are checked in schema order: the forced choice (unless `response_set`), then the
    set (unless `forced_choice`). With `asked` (a reply to the shared schema), a field outside
    `asked` that the judge filled anyway is ignored and named in `Answer.ignored`.
    """
    if not content or not content.strip():
        raise parse_failure("the reply was empty")
    text = json_text(content)
    # the asked fields decide; one filled beside them is ignored and counted, never re-asked
    ignored = () if asked is None else unasked_filled(text, asked)
    explanation = ""
    verdict: CriterionVerdict | None = None
    position: int | None = None
    shown_set: list[int] | None = None
    try:
        if elicitation != "response_set" and option_count is None:
            binary = BinaryReply.model_validate_json(text)
            explanation, verdict = binary.explanation, binary.criterion_status
        elif elicitation != "response_set":
            choice = MultiChoiceReply.model_validate_json(text)
            explanation, position = choice.explanation, choice.selected_option
        if elicitation != "forced_choice":
            reply = ResponseSetReply.model_validate_json(text)
            explanation, shown_set = reply.explanation, reply.selected_options
    except ValidationError as error:
        first = error.errors()[0]  # named as `field: problem`
        where = ".".join(str(p) for p in first["loc"]) or "reply"
        raise parse_failure(f"{where}: {first['msg']}") from None
    if option_count is not None and position is not None and not 1 <= position <= option_count:
        raise parse_failure(f"selected_option {position} is outside 1..{option_count}")
    return Answer(
        explanation,
        verdict=verdict,
        shown_position=position,
        shown_set=None if shown_set is None else checked_set(shown_set, set_size(option_count)),
        ignored=ignored,
        affected=affected_names(text) if affected else None,
    )


def affected_names(text: str) -> tuple[str, ...]:
    """`affected_criteria` of a reply that was asked for it; null or absent reads as none."""
    try:
        names = AffectedReply.model_validate_json(text).affected_criteria
    except ValidationError as error:
        raise parse_failure(f"{AFFECTED}: {error.errors()[0]['msg']}") from None
    return tuple(n.strip() for n in names or () if n.strip())
