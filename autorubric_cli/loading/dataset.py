"""Streaming dataset loading (docs/reference/dataset-files.md), every format through `readers`,
validated against the rubric."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from autorubric_cli.core.items import ITEM_FIELDS, HumanRating, Item
from autorubric_cli.core.records import CriterionVerdict
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.core.words import plural
from autorubric_cli.errors import InputError, unknown_name_message
from autorubric_cli.loading.fields import apply_fields
from autorubric_cli.loading.item_fields import parse_context, parse_item_criteria, parse_tags
from autorubric_cli.loading.readers import MAX_LINE_BYTES as MAX_LINE_BYTES
from autorubric_cli.loading.readers import iter_json_lines as iter_json_lines
from autorubric_cli.loading.readers import iter_records
from autorubric_cli.loading.submission import conversation_cell, parse_submission
from autorubric_cli.loading.where import Where

ITEM_KEYS = set(ITEM_FIELDS)
VERDICT_LABELS = [v.value for v in CriterionVerdict]
T = TypeVar("T")


@dataclass
class DatasetSummary:
    items: int = 0
    with_ground_truth: int = 0
    with_human_ratings: int = 0
    labels: dict[str, int] = field(default_factory=dict)
    with_rubric: int = 0  # items with criteria of their own
    item_criteria: int = 0  # those criteria, over every item


def iter_items(
    path: str | Path, rubric: Rubric, fields: Mapping[str, str] | None = None
) -> Iterator[Item]:
    """Validated items in file order. Raises InputError on the first bad record.

    `fields` maps our fields to the file's (docs/reference/dataset-files.md); default: the rubric's
    `dataset.fields`.
    """
    path = Path(path)
    mapping = rubric.dataset.fields if fields is None else fields
    seen: set[str] = set()
    index = 0
    for where, obj in iter_records(path):
        item = parse_item(apply_fields(obj, mapping, where), where, rubric, index)
        if item.id in seen:
            raise where.error(f"duplicate id {item.id!r}", key="id")
        seen.add(item.id)
        index += 1
        yield item
    if index == 0:
        raise InputError("dataset has no items", path=str(path), line=1)


def summarize_dataset(
    path: str | Path, rubric: Rubric, fields: Mapping[str, str] | None = None
) -> DatasetSummary:
    summary = DatasetSummary()
    for item in iter_items(path, rubric, fields):
        summary.items += 1
        summary.with_ground_truth += bool(item.ground_truth)
        summary.with_human_ratings += bool(item.human_ratings)
        summary.with_rubric += bool(item.rubric)
        summary.item_criteria += len(item.rubric)
        for name in item.ground_truth:
            summary.labels[name] = summary.labels.get(name, 0) + 1
    return summary


def parse_item(obj: Any, where: Where, rubric: Rubric, index: int) -> Item:
    if not isinstance(obj, dict):
        raise where.error("each line must be a JSON object")
    metadata = obj.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise where.error("`metadata` must be an object", key="metadata")
    own = _placed(where, parse_item_criteria, obj.get("rubric"), rubric)
    graded = rubric.for_item(own)
    if not graded.criteria:
        raise where.error(
            "the item has no criterion: the rubric file has none, so each item needs a `rubric`",
            key="rubric",
        )
    return Item(
        id=_parse_id(obj.get("id", where.line), where),
        index=index,
        line=where.line,
        submission=parse_submission(obj.get("submission"), where, graded.grades_final_turn()),
        query=_optional_str(obj, "query", where),
        reference_submission=_optional_str(obj, "reference_submission", where),
        ground_truth=_parse_ground_truth(obj.get("ground_truth"), where, graded),
        human_ratings=parse_human_ratings(obj.get("human_ratings"), where, graded),
        metadata=metadata,
        context=_placed(where, parse_context, _cell(obj.get("context"), where, "context")),
        rubric=own,
        tags=_placed(where, parse_tags, obj.get("tags")),
    )


def _placed(where: Where, parse: Callable[..., T], *args: Any) -> T:
    """`parse(*args)`, its InputError (raised with a key, no place) placed at this record."""
    try:
        return parse(*args)
    except InputError as exc:
        raise where.relocated(exc) from None


def _cell(value: Any, where: Where, key: str) -> Any:
    """A text cell (CSV, Parquet) holding JSON is parsed."""
    return (
        conversation_cell(value, where, key)
        if isinstance(value, str) and where.text_cells
        else value
    )


def _parse_id(value: Any, where: Where) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise where.error("`id` must be a string", key="id")
    text = str(value).strip()
    if not text:
        raise where.error("`id` must not be empty", key="id")
    return text


def _optional_str(obj: dict[str, Any], key: str, where: Where) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise where.error(f"`{key}` must be a string", key=key)
    return value


def canonical_label(criterion: Criterion, label: Any, where: Where, key: str) -> str:
    """Match a label case-insensitively and trimmed; return the rubric's spelling."""
    allowed = VERDICT_LABELS if criterion.options is None else [o.label for o in criterion.options]
    if isinstance(label, str):
        wanted = label.strip().lower()
        for candidate in allowed:
            if candidate.lower() == wanted:
                return candidate
    raise where.error(
        f"label {label!r} is not valid for criterion {criterion.name!r} "
        f"(one of: {', '.join(allowed)})",
        key=key,
    )


def _criterion(rubric: Rubric, name: Any, where: Where, key: str) -> Criterion:
    try:
        return rubric.criterion(name)
    except KeyError:
        names = [c.name for c in rubric.criteria]
        message = unknown_name_message("criterion", str(name), names)
        raise where.error(message, key=f"{key}.{name}") from None


def _parse_ground_truth(value: Any, where: Where, rubric: Rubric) -> dict[str, str]:
    if value is None:
        return {}
    if isinstance(value, list):
        if len(value) != len(rubric.criteria):
            raise where.error(
                f"ground_truth list has {plural(len(value), 'entry', 'entries')}; the rubric "
                f"has {plural(len(rubric.criteria), 'criterion', 'criteria')}",
                key="ground_truth",
            )
        value = {c.name: v for c, v in zip(rubric.criteria, value, strict=True)}
    if not isinstance(value, dict):
        raise where.error("`ground_truth` must be an object or a list", key="ground_truth")
    out = {}
    for name, label in value.items():
        criterion = _criterion(rubric, name, where, "ground_truth")
        if label is not None:
            out[name] = canonical_label(criterion, label, where, f"ground_truth.{name}")
    return out


def parse_human_ratings(value: Any, where: Where, rubric: Rubric) -> dict[str, list[HumanRating]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise where.error("`human_ratings` must be an object", key="human_ratings")
    out: dict[str, list[HumanRating]] = {}
    for name, entries in value.items():
        key = f"human_ratings.{name}"
        criterion = _criterion(rubric, name, where, "human_ratings")
        if not isinstance(entries, list):
            raise where.error("ratings must be a list, one entry per rater", key=key)
        ratings: list[HumanRating] = []
        for entry in entries:
            if isinstance(entry, list):
                if not entry:
                    raise where.error("a response set must not be empty", key=key)
                ratings.append([canonical_label(criterion, e, where, key) for e in entry])
            else:
                ratings.append(canonical_label(criterion, entry, where, key))
        out[name] = ratings
    return out
