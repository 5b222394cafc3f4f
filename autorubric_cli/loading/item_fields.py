"""An item's own criteria, context and tags (docs/reference/dataset-files.md, per-item rubrics).

A criterion of an item's `rubric` is in the rubric file's form (`name`, `requirement`, `weight`,
`options`, `scope`, ...) or in HealthBench's (`criterion` read as `requirement`, `points` as
`weight`); every rule of the rubric file applies, and each error names the item's key path as
the file has it (`rubric[3].points`, `rubric[0].options[1].value`). A key given as null counts as
absent (a Parquet struct column gives every criterion every key).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from autorubric_cli.core.conversation import Message
from autorubric_cli.core.conversation_rules import parse_conversation
from autorubric_cli.core.criterion import Criterion
from autorubric_cli.core.item_rubric import name_item_criteria
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.loading.rubric_loader import validation_problem
from autorubric_cli.loading.yaml_lines import dotted

HEALTHBENCH_KEYS = {"criterion": "requirement", "points": "weight"}
"""HealthBench's criterion keys -> ours."""


def parse_item_criteria(value: Any, rubric: Rubric) -> list[Criterion]:
    """The item's criteria, named (`i<n>` when unnamed) and checked; none when absent."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError("`rubric` must be a list of criteria", key="rubric")
    criteria = [parse_criterion(raw, position) for position, raw in enumerate(value)]
    return name_item_criteria(criteria, rubric)


def parse_criterion(raw: Any, position: int) -> Criterion:
    at = f"rubric[{position}]"
    if not isinstance(raw, dict):
        raise InputError(
            "a criterion must be an object with a `requirement` (or HealthBench's `criterion`)",
            key=at,
        )
    data, given_as = our_form(raw, at)
    try:
        return Criterion.model_validate(data)
    except ValidationError as exc:
        message, loc = validation_problem(exc, data, Criterion)
        if loc and loc[0] in given_as:
            loc = (given_as[loc[0]], *loc[1:])
        raise InputError(message, key=at + ("." + dotted(loc) if loc else "")) from None


def our_form(raw: dict[str, Any], at: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The criterion with HealthBench's keys renamed and null keys dropped; and our key -> the
    key the file used, for errors."""
    data: dict[str, Any] = {}
    given_as: dict[str, str] = {}
    for key, value in raw.items():
        if value is None:
            continue
        ours = HEALTHBENCH_KEYS.get(str(key), str(key))
        if ours in data:
            first = given_as.get(ours, ours)
            raise InputError(f"give `{first}` or `{key}`, not both", key=f"{at}.{key}")
        if ours != key:
            given_as[ours] = str(key)
        data[ours] = value
    return data, given_as


def parse_tags(value: Any, key: str = "tags") -> list[str]:
    """A list of strings (by convention `key:value`); none when absent."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError("`tags` must be a list of strings", key=key)
    for position, tag in enumerate(value):
        if not isinstance(tag, str) or not tag.strip():
            raise InputError("a tag must be a non-empty string", key=f"{key}[{position}]")
    return list(value)


def parse_context(value: Any) -> list[Message] | None:
    """The conversation before the submission, checked by the conversation rules."""
    if value is None:
        return None
    return parse_conversation(value, key="context")
