"""An item's own criteria (docs/reference/dataset-files.md, per-item rubrics): how they are named,
and their definitions as item records keep them (docs/reference/experiment-directory.md).

`with_definitions` writes an item criterion's definition into its record entry and
`record_rubric` reads it back: one pair, so what a record says is what the item was graded with.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autorubric_cli.core.criterion import Criterion, CriterionOption, with_auto_na
from autorubric_cli.core.records import CriterionRecord, DefinedOption, ItemRecord
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError

ITEM_NAME_PREFIX = "i"
DEFAULTS: dict[str, Any] = {
    "scale_type": "ordinal",
    "aggregation": None,
    "scope": "conversation",
    "elicitation": "forced_choice",
}
"""The definition keys a record keeps only when they differ from these defaults."""
_BLANK_CRITERION = Criterion(requirement="-")
_BLANK_OPTION = CriterionOption(label="-", na=True)


def name_item_criteria(criteria: list[Criterion], rubric: Rubric) -> list[Criterion]:
    """Names the item's criteria in place: an unnamed one is `i<n>` (its 1-based position in
    the item's list). A name used twice in the item, or by a criterion of the rubric file, is
    an InputError at `rubric[<position>].name`. `auto_na_option` applies as to the file's."""
    shared = {c.name for c in rubric.criteria}
    seen: set[str] = set()
    for position, criterion in enumerate(criteria):
        if not criterion.name:
            criterion.name = f"{ITEM_NAME_PREFIX}{position + 1}"
        key = f"rubric[{position}].name"
        if criterion.name in shared:
            raise InputError(
                f"criterion name {criterion.name!r} is taken by the rubric file's criteria; "
                "give the item's criterion another name",
                key=key,
            )
        if criterion.name in seen:
            raise InputError(f"duplicate criterion name {criterion.name!r} in the item", key=key)
        seen.add(criterion.name)
        if rubric.grader.auto_na_option:
            with_auto_na(criterion)
    return criteria


def criterion_definition(criterion: Criterion) -> dict[str, Any]:
    """The definition keys of an item criterion's record entry."""
    options = criterion.options
    fields: dict[str, Any] = {
        "requirement": criterion.requirement,
        "weight": criterion.weight,
        "tags": list(criterion.tags),
        "options": None
        if options is None
        else [DefinedOption(label=o.label, value=o.value, na=o.na) for o in options],
    }
    for key, default in DEFAULTS.items():
        value = getattr(criterion, key)
        if value != default:
            fields[key] = value
    return fields


def with_definitions(
    records: Sequence[CriterionRecord], item_criteria: Sequence[Criterion]
) -> list[CriterionRecord]:
    """The item's criterion entries (shared first, then the item's own, as graded) with each
    item criterion's definition kept."""
    shared = len(records) - len(item_criteria)
    return [
        *records[:shared],
        *(
            record.model_copy(update=criterion_definition(criterion))
            for record, criterion in zip(records[shared:], item_criteria, strict=True)
        ),
    ]


def defined_weight(record: CriterionRecord) -> float:
    """An item criterion's weight as its entry defines it (the default when absent): what a
    report reads of a binary item criterion, with its tags, without building the criterion."""
    return _BLANK_CRITERION.weight if record.weight is None else record.weight


def defined_criterion(record: CriterionRecord) -> Criterion:
    """The item criterion a record entry defines (a copy of a template: records were checked
    when written, and a report reads many)."""
    fields: dict[str, Any] = {
        "name": record.name,
        "requirement": record.requirement,
        "weight": defined_weight(record),
        "tags": list(record.tags or ()),
        "options": None
        if record.options is None
        else [
            _BLANK_OPTION.model_copy(update={"label": o.label, "value": o.value, "na": o.na})
            for o in record.options
        ],
    }
    for key, default in DEFAULTS.items():
        value = getattr(record, key)
        fields[key] = default if value is None else value
    return _BLANK_CRITERION.model_copy(update=fields)


def is_item_criterion(record: CriterionRecord) -> bool:
    return record.requirement is not None


def record_rubric(rubric: Rubric, record: ItemRecord) -> Rubric:
    """The rubric an item was graded with, from its record: the run's shared criteria, then the
    item criteria its entries define, in record order."""
    own = [defined_criterion(c) for c in record.criteria if c.requirement is not None]
    return rubric.for_item(own)
