"""Streaming JSONL dataset loading (SPEC §2), validated against the rubric."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from autorubric_cli.core.items import HumanRating, Item, Submission
from autorubric_cli.core.records import CriterionVerdict
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.errors import InputError

MAX_LINE_BYTES = 16 * 1024 * 1024
ITEM_KEYS = {
    "id",
    "submission",
    "query",
    "reference_submission",
    "ground_truth",
    "human_ratings",
    "metadata",
}
VERDICT_LABELS = [v.value for v in CriterionVerdict]


@dataclass
class DatasetSummary:
    items: int = 0
    with_ground_truth: int = 0
    with_human_ratings: int = 0
    labels: dict[str, int] = field(default_factory=dict)


class Where:
    def __init__(self, source: str, line: int) -> None:
        self.source, self.line = source, line

    def error(self, message: str, key: str = "") -> InputError:
        return InputError(message, path=self.source, line=self.line, key=key)


def iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(1-based line number, text) for non-blank lines, without reading the file at once."""
    source = str(path)
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise InputError("dataset file not found", path=source) from None
    except IsADirectoryError:
        raise InputError("dataset path is a directory, not a file", path=source) from None
    with handle:
        number = 0
        while True:
            raw = handle.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                raise InputError(
                    f"line is longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB",
                    path=source,
                    line=number,
                )
            if b"\x00" in raw:
                raise InputError("binary data (NUL byte) in dataset", path=source, line=number)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise InputError("line is not UTF-8 text", path=source, line=number) from None
            if text.strip():
                yield number, text


def iter_json_lines(path: Path) -> Iterator[tuple[Where, Any]]:
    """(location, parsed JSON) for every non-blank line; a malformed line is an InputError."""
    for number, text in iter_lines(path):
        where = Where(str(path), number)
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            raise where.error(f"invalid JSON: {str(exc).split(':')[0]}") from None
        yield where, obj


def iter_items(path: str | Path, rubric: Rubric) -> Iterator[Item]:
    """Validated items in file order. Raises InputError on the first bad line."""
    path = Path(path)
    seen: set[str] = set()
    index = 0
    for where, obj in iter_json_lines(path):
        item = parse_item(obj, where, rubric, index)
        if item.id in seen:
            raise where.error(f"duplicate id {item.id!r}", key="id")
        seen.add(item.id)
        index += 1
        yield item
    if index == 0:
        raise InputError("dataset has no items", path=str(path), line=1)


def summarize_dataset(path: str | Path, rubric: Rubric) -> DatasetSummary:
    summary = DatasetSummary()
    for item in iter_items(path, rubric):
        summary.items += 1
        summary.with_ground_truth += bool(item.ground_truth)
        summary.with_human_ratings += bool(item.human_ratings)
        for name in item.ground_truth:
            summary.labels[name] = summary.labels.get(name, 0) + 1
    return summary


def parse_item(obj: Any, where: Where, rubric: Rubric, index: int) -> Item:
    if not isinstance(obj, dict):
        raise where.error("each line must be a JSON object")
    unknown = sorted(set(obj) - ITEM_KEYS)
    if unknown:
        raise where.error(
            f"unknown key {unknown[0]!r} (put extra fields under `metadata`)", key=unknown[0]
        )
    metadata = obj.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise where.error("`metadata` must be an object", key="metadata")
    return Item(
        id=_parse_id(obj.get("id", where.line), where),
        index=index,
        line=where.line,
        submission=_parse_submission(obj.get("submission"), where),
        query=_optional_str(obj, "query", where),
        reference_submission=_optional_str(obj, "reference_submission", where),
        ground_truth=_parse_ground_truth(obj.get("ground_truth"), where, rubric),
        human_ratings=parse_human_ratings(obj.get("human_ratings"), where, rubric),
        metadata=metadata,
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


def _parse_submission(value: Any, where: Where) -> Submission:
    if isinstance(value, str):
        return Submission(output=value)
    if isinstance(value, dict):
        extra = sorted(set(value) - {"thinking", "output"})
        if extra:
            raise where.error(f"unknown key {extra[0]!r}", key=f"submission.{extra[0]}")
        output, thinking = value.get("output"), value.get("thinking")
        if not isinstance(output, str):
            raise where.error("`submission.output` must be a string", key="submission.output")
        if thinking is not None and not isinstance(thinking, str):
            raise where.error("`submission.thinking` must be a string", key="submission.thinking")
        return Submission(output=output, thinking=thinking)
    if value is None:
        raise where.error("missing required key 'submission'", key="submission")
    raise where.error("`submission` must be a string or {thinking, output}", key="submission")


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
        raise where.error(f"unknown criterion {name!r}", key=f"{key}.{name}") from None


def _parse_ground_truth(value: Any, where: Where, rubric: Rubric) -> dict[str, str]:
    if value is None:
        return {}
    if isinstance(value, list):
        if len(value) != len(rubric.criteria):
            raise where.error(
                f"ground_truth list has {len(value)} entries; the rubric has "
                f"{len(rubric.criteria)} criteria",
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
