"""Rubric, Criterion, CriterionOption (docs/reference/rubric-file.md)."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, field_validator, model_validator

from autorubric_cli.core.clusters import ReportSection
from autorubric_cli.core.config import (
    BINARY_AGGREGATIONS,
    NOMINAL_AGGREGATIONS,
    ORDINAL_AGGREGATIONS,
    GateCheck,
    LLMConfig,
    Strict,
)
from autorubric_cli.core.items import ITEM_FIELDS
from autorubric_cli.errors import unknown_name_message

CriterionKind = Literal["binary", "ordinal", "nominal"]
Elicitation = Literal["forced_choice", "response_set", "both"]
Scope = Literal["conversation", "final_turn"]
AUTO_NA_LABEL = "Cannot assess"


class CriterionOption(Strict):
    label: str = Field(min_length=1)
    value: float | None = None
    na: bool = False

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


class DatasetSection(Strict):
    """How to read the dataset file (docs/reference/dataset-files.md): our field <- the file's
    dotted path."""

    fields: dict[str, str] = Field(default_factory=dict)

    @field_validator("fields")
    @classmethod
    def _known_targets(cls, v: dict[str, str]) -> dict[str, str]:
        for target, path in v.items():
            if target not in ITEM_FIELDS:
                raise ValueError(unknown_name_message("field", target, ITEM_FIELDS))
            if not all(path.split(".")):
                raise ValueError(f"bad path {path!r} for field {target!r}")
        return v


class Rubric(Strict):
    name: str | None = None
    guidelines: str | None = None
    criteria: list[Criterion] = Field(min_length=1)
    grader: LLMConfig = Field(default_factory=LLMConfig)
    report: ReportSection = Field(default_factory=ReportSection)
    gate: list[GateCheck] = Field(default_factory=list)
    dataset: DatasetSection = Field(default_factory=DatasetSection)

    @model_validator(mode="after")
    def _names_and_auto_na(self) -> Rubric:
        seen: set[str] = set()
        for position, criterion in enumerate(self.criteria, start=1):
            if not criterion.name:
                criterion.name = f"c{position}"
            if criterion.name in seen:
                raise ValueError(f"duplicate criterion name {criterion.name!r}")
            seen.add(criterion.name)
            options = criterion.options
            if (
                self.grader.auto_na_option
                and options is not None
                and criterion.na_option_index() is None
            ):
                options.append(CriterionOption(label=AUTO_NA_LABEL, na=True))
        return self

    def grades_final_turn(self) -> bool:
        """Some criterion grades a conversation's last assistant message only."""
        return any(c.scope == "final_turn" for c in self.criteria)

    def criterion(self, name: str) -> Criterion:
        for criterion in self.criteria:
            if criterion.name == name:
                return criterion
        raise KeyError(name)

    def aggregation_for(self, criterion: Criterion) -> str:
        if criterion.aggregation is not None:
            return criterion.aggregation
        return {
            "binary": self.grader.aggregation,
            "ordinal": self.grader.ordinal_aggregation,
            "nominal": self.grader.nominal_aggregation,
        }[criterion.kind]
