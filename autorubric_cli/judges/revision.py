"""The reviser's call (`improve`, docs/guides/rubric-quality.md): a judge asked for new wording
of one criterion, through the same call loop as every judge call (`Judge.ask`: retries,
re-asks, the call cache, the spend cap, traces).

The reply carries wording only: `{explanation, requirement, option_descriptions: [{label,
description}]}`. A criterion's name, weight and option labels are not in it, so the reviser
cannot change them. An option description names its option by label; a label the criterion
does not have, or an empty requirement, is a `parse` failure and is re-asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from autorubric_cli.core.rubric import Criterion
from autorubric_cli.judges.replies import (
    json_schema_format,
    json_text,
    parse_failure,
    strict_object,
)

SCHEMA_NAME = "criterion_revision"


@dataclass(frozen=True)
class ReviseRequest:
    """Ask for new wording of `criterion`. `item_id` names the request in traces and logs
    (`revise:<criterion>:<round>`); there is one sample."""

    item_id: str
    criterion: Criterion
    messages: list[dict[str, str]]
    sample: int = 0

    def response_format(self, shared: bool = False) -> dict[str, Any]:
        """One schema for every revision (nothing criterion-specific to leave out)."""
        return revision_response_format()

    @property
    def votes(self) -> int:
        """The votes this request stands for (the breaker and the progress line count them):
        one reviser's answer."""
        return 1


def revision_response_format() -> dict[str, Any]:
    option = strict_object({"label": {"type": "string"}, "description": {"type": "string"}})
    return json_schema_format(
        SCHEMA_NAME,
        strict_object(
            {
                "explanation": {"type": "string"},
                "requirement": {"type": "string"},
                "option_descriptions": {"type": "array", "items": option},
            }
        ),
    )


class OptionWording(BaseModel):
    model_config = ConfigDict(extra="ignore")

    label: str
    description: str


class Revision(BaseModel):
    """New wording for one criterion; `option_descriptions` maps the criterion's own labels."""

    model_config = ConfigDict(extra="ignore")

    explanation: str = ""
    requirement: str
    option_descriptions: list[OptionWording] = []


def parse_revision(content: str | None, criterion: Criterion) -> Revision:
    """Validate a reviser's reply; raises a retryable `parse` JudgeFailure."""
    if not content or not content.strip():
        raise parse_failure("the reply was empty")
    try:
        revision = Revision.model_validate_json(json_text(content))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "reply"
        raise parse_failure(f"{where}: {first['msg']}") from None
    if not revision.requirement.strip():
        raise parse_failure("requirement is empty")
    labels = {o.label.strip().lower(): o.label for o in criterion.options or []}
    named = []
    for wording in revision.option_descriptions:
        label = labels.get(wording.label.strip().lower())
        if label is None:
            raise parse_failure(f"option_descriptions names {wording.label!r}, not an option")
        named.append(OptionWording(label=label, description=wording.description.strip()))
    return revision.model_copy(
        update={"requirement": revision.requirement.strip(), "option_descriptions": named}
    )
