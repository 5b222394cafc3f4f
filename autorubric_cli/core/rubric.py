"""Rubric (docs/reference/rubric-file.md): the shared criteria and the grader's configuration;
`for_item` adds an item's own criteria (docs/reference/dataset-files.md, per-item rubrics)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field, field_validator, model_validator

from autorubric_cli.core.clusters import ReportSection
from autorubric_cli.core.config import GateCheck, LLMConfig, Strict
from autorubric_cli.core.criterion import AUTO_NA_LABEL as AUTO_NA_LABEL
from autorubric_cli.core.criterion import Criterion as Criterion
from autorubric_cli.core.criterion import CriterionKind as CriterionKind
from autorubric_cli.core.criterion import CriterionOption as CriterionOption
from autorubric_cli.core.criterion import Elicitation as Elicitation
from autorubric_cli.core.criterion import Scope as Scope
from autorubric_cli.core.criterion import with_auto_na
from autorubric_cli.core.items import ITEM_FIELDS
from autorubric_cli.core.pairs import PairwiseSection
from autorubric_cli.errors import unknown_name_message


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
    # may be empty when every item carries its own criteria
    criteria: list[Criterion] = Field(default_factory=list)
    grader: LLMConfig = Field(default_factory=LLMConfig)
    report: ReportSection = Field(default_factory=ReportSection)
    gate: list[GateCheck] = Field(default_factory=list)
    dataset: DatasetSection = Field(default_factory=DatasetSection)
    pairwise: PairwiseSection | None = None  # `autorubric pairwise` (docs/guides/pairwise.md)

    @model_validator(mode="after")
    def _names_and_auto_na(self) -> Rubric:
        seen: set[str] = set()
        for position, criterion in enumerate(self.criteria, start=1):
            if not criterion.name:
                criterion.name = f"c{position}"
            if criterion.name in seen:
                raise ValueError(f"duplicate criterion name {criterion.name!r}")
            seen.add(criterion.name)
            if self.grader.auto_na_option:
                with_auto_na(criterion)
        return self

    @model_validator(mode="after")
    def _cascade_criteria(self) -> Rubric:
        """A threshold map names the shared criteria (an item's own criteria are named per
        item, so they take `"*"`)."""
        if self.grader.cascade is not None:
            self.grader.cascade.check_criteria([c.name for c in self.criteria])
        return self

    def for_item(self, item_criteria: Sequence[Criterion]) -> Rubric:
        """The rubric one item is graded with: the shared criteria, then the item's own (named
        and checked where items are read). A shallow copy, so it costs little per item; the
        item's criteria must not repeat a shared name (the loader refuses that)."""
        if not item_criteria:
            return self
        return self.model_copy(update={"criteria": [*self.criteria, *item_criteria]})

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
