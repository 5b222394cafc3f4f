"""Criterion and CriterionOption (docs/reference/rubric-file.md): the rubric file's criteria and an
item's own (docs/reference/dataset-files.md, per-item rubrics)."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, field_validator, model_validator

from autorubric_cli.core.config import (
    BINARY_AGGREGATIONS,
    NOMINAL_AGGREGATIONS,
    ORDINAL_AGGREGATIONS,
    Strict,
)

CriterionKind = Literal["binary", "ordinal", "nominal"]
Elicitation = Literal["forced_choice", "response_set", "both"]
Scope = Literal["conversation", "final_turn"]
AUTO_NA_LABEL = "Cannot assess"


class CriterionOption(Strict):
    label: str = Field(min_length=1)
    value: float | None = None
    na: bool = False
    # shown to the judge under the label; the label stays the option's name in labels and
    # reports (docs/reference/rubric-file.md)
    description: str | None = None

    @model_validator(mode="after")
    def _value_in_unit_range(self) -> CriterionOption:
        if self.na:
            return self
        if self.value is None:
            raise ValueError("a non-NA option needs a `value` in [0, 1]")
        if not math.isfinite(self.value) or not 0.0 <= self.value <= 1.0:
            raise ValueError(f"option value {self.value} is outside [0, 1]")
        return self


class Criterion(Strict):
    name: str = ""
    requirement: str = Field(min_length=1)
    weight: float = 10.0
    # binary: says what a criterion without `options` is anyway (MET/UNMET), as check/report do
    scale_type: CriterionKind = "ordinal"
    aggregation: str | None = None
    options: list[CriterionOption] | None = None
    elicitation: Elicitation = "forced_choice"
    # what a judge grades of a conversation: all of it, or its last assistant message
    scope: Scope = "conversation"
    # `key:value` labels (axis:accuracy) that group criteria in the report's `tags` section
    tags: list[str] = Field(default_factory=list)

    @field_validator("tags")
    @classmethod
    def _tags_named(cls, v: list[str]) -> list[str]:
        if any(not tag.strip() for tag in v):
            raise ValueError("a tag must be a non-empty string")
        return v

    @field_validator("weight")
    @classmethod
    def _finite_weight(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError("weight must be a finite number")
        return v

    @model_validator(mode="after")
    def _check_options_and_aggregation(self) -> Criterion:
        if self.scale_type == "binary" and self.options is not None:
            raise ValueError(
                "scale_type `binary` is for a criterion without options (MET/UNMET); "
                "with options use ordinal or nominal"
            )
        if self.options is not None:
            if sum(1 for o in self.options if not o.na) < 2:
                raise ValueError("a multi-choice criterion needs at least two non-NA options")
            labels = [o.label.strip().lower() for o in self.options]
            if len(set(labels)) != len(labels):
                raise ValueError("option labels must be unique")
        allowed = {
            "binary": BINARY_AGGREGATIONS,
            "ordinal": ORDINAL_AGGREGATIONS,
            "nominal": NOMINAL_AGGREGATIONS,
        }[self.kind]
        if self.aggregation is not None and self.aggregation not in allowed:
            raise ValueError(
                f"aggregation {self.aggregation!r} is not valid for a {self.kind} criterion "
                f"(one of: {', '.join(allowed)})"
            )
        return self

    @property
    def kind(self) -> CriterionKind:
        if self.options is None:
            return "binary"
        return self.scale_type

    @property
    def is_multi_choice(self) -> bool:
        return self.options is not None

    def option_list(self) -> list[CriterionOption]:
        if self.options is None:
            raise ValueError(f"criterion {self.name!r} is binary")
        return self.options

    def na_option_index(self) -> int | None:
        for i, option in enumerate(self.options or []):
            if option.na:
                return i
        return None


def with_auto_na(criterion: Criterion) -> None:
    """`auto_na_option: true`: a multi-choice criterion without an NA option gets one."""
    if criterion.options is not None and criterion.na_option_index() is None:
        criterion.options.append(CriterionOption(label=AUTO_NA_LABEL, na=True))
