"""`autorubric label import DIR FILE...`: check every line of every file, then append them all
to DIR/human_labels.jsonl in one write (docs/guides/labels.md).

A line names an item of the experiment, a rater, and labels of the item's criteria: the rubric
file's, and the item's own when it has any (matched case-insensitively, stored in the rubric's
spelling, as the dataset loader does). Any bad line
is an InputError `file:line: key: message` before anything is written. Lines already stored
(same content) are not appended twice, so importing a file again changes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from autorubric_cli.core.item_rubric import record_rubric
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.errors import InputError, writing
from autorubric_cli.experiment.human_labels import LABELS, LabelLine
from autorubric_cli.experiment.manifest import ITEMS
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.experiment.store import ReadIssues, latest_lines, records_by_id
from autorubric_cli.loading.dataset import canonical_label
from autorubric_cli.loading.readers import iter_json_lines
from autorubric_cli.loading.where import Where

KEYS = ("id", "rater", "labels", "response_sets", "notes", "labelled_at", "started_at")


@dataclass
class ImportResult:
    added: int
    unchanged: int
    raters: list[str]
    path: Path


def import_labels(directory: Path, files: Sequence[Path]) -> ImportResult:
    """Check every line of `files`, then append the new ones to DIR/human_labels.jsonl."""
    experiment = open_experiment(directory)
    latest = latest_lines(directory / ITEMS, ReadIssues())
    target = directory / LABELS
    stored = _stored_lines(target)
    fresh: list[bytes] = []
    raters: dict[str, None] = {}
    given = read_label_files(files)
    rubrics = item_rubrics(directory, experiment.rubric, latest, given)
    for where, obj in given:
        rubric = rubrics.get(obj.get("id") if isinstance(obj, dict) else None, experiment.rubric)
        line = parse_label_line(obj, where, rubric, set(latest))
        raters[line.rater] = None
        data = line.dump()
        if data not in stored:
            stored.add(data)
            fresh.append(data)
    if fresh:
        with writing(target), target.open("ab") as handle:
            handle.truncate(_complete_length(target))  # a torn last line was never a label
            handle.write(b"".join(fresh))  # one write
            handle.flush()
            os.fsync(handle.fileno())
    return ImportResult(len(fresh), len(given) - len(fresh), list(raters), target)


def read_label_files(files: Sequence[Path]) -> list[tuple[Where, Any]]:
    """Every line of every file, parsed as JSON (a line that is not is an InputError)."""
    given: list[tuple[Where, Any]] = []
    for file in files:
        if not file.is_file():
            raise InputError("labels file not found", path=str(file))
        given.extend(iter_json_lines(file))
    return given


def item_rubrics(
    directory: Path,
    rubric: Rubric,
    latest: dict[str, tuple[int, str]],
    given: list[tuple[Where, Any]],
) -> dict[str | None, Rubric]:
    """id -> the rubric the item was graded with (the shared criteria, then its own), for the
    items the lines name; only their records are read."""
    ids = {obj.get("id") for _, obj in given if isinstance(obj, dict)}
    wanted = {i for i in ids if isinstance(i, str)}
    records = records_by_id(directory / ITEMS, latest, wanted)
    return {item_id: record_rubric(rubric, r) for item_id, r in records.items()}


def _complete_length(path: Path) -> int:
    """Bytes up to the last newline (a crash mid-import can leave a partial last line)."""
    data = path.read_bytes() if path.is_file() else b""
    return data.rfind(b"\n") + 1


def _stored_lines(path: Path) -> set[bytes]:
    if not path.is_file():
        return set()
    with path.open("rb") as handle:
        return {raw if raw.endswith(b"\n") else raw + b"\n" for raw in handle if raw.strip()}


def parse_label_line(obj: Any, where: Where, rubric: Rubric, ids: set[str]) -> LabelLine:
    """One exported line, checked key by key against the experiment."""
    if not isinstance(obj, dict):
        raise where.error("each line must be a JSON object")
    for key in obj:
        if key not in KEYS:
            raise where.error(f"unknown key (allowed: {', '.join(KEYS)})", key=str(key))
    item_id = _text(obj, "id", where)
    if item_id not in ids:
        raise where.error(f"unknown item id {item_id!r}: not graded in this experiment", key="id")
    rater = _text(obj, "rater", where)
    labels = {
        name: canonical_label(criterion, value, where, f"labels.{name}")
        for name, criterion, value in _by_criterion(obj, "labels", where, rubric)
    }
    sets = {
        name: _response_set(criterion, value, where, f"response_sets.{name}")
        for name, criterion, value in _by_criterion(obj, "response_sets", where, rubric)
    }
    notes: dict[str, str] = {}
    for name, _, value in _by_criterion(obj, "notes", where, rubric):
        if not isinstance(value, str):
            raise where.error("a note must be a string", key=f"notes.{name}")
        notes[name] = value
    if not labels and not sets:
        raise where.error("no label for any criterion", key="labels")
    return LabelLine(
        id=item_id,
        rater=rater,
        labels=labels,
        response_sets=sets,
        notes=notes,
        labelled_at=_time(obj, "labelled_at", where, required=True),
        started_at=_time(obj, "started_at", where, required=False),
    )


def _text(obj: dict[str, Any], key: str, where: Where) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise where.error("must be a non-empty string", key=key)
    return value.strip()


def _by_criterion(
    obj: dict[str, Any], key: str, where: Where, rubric: Rubric
) -> list[tuple[str, Criterion, Any]]:
    value = obj.get(key, {})
    if not isinstance(value, dict):
        raise where.error("must be an object: criterion name -> value", key=key)
    out = []
    for name, entry in value.items():
        try:
            criterion = rubric.criterion(name)
        except KeyError:
            known = ", ".join(c.name for c in rubric.criteria)
            raise where.error(
                f"unknown criterion {name!r} (one of: {known})", key=f"{key}.{name}"
            ) from None
        out.append((name, criterion, entry))
    return out


def _response_set(criterion: Criterion, value: Any, where: Where, key: str) -> list[str]:
    if not isinstance(value, list) or not value:
        raise where.error("a response set must be a non-empty list of labels", key=key)
    labels = [canonical_label(criterion, v, where, key) for v in value]
    return list(dict.fromkeys(labels))


def _time(obj: dict[str, Any], key: str, where: Where, *, required: bool) -> datetime | None:
    value = obj.get(key)
    if value is None and not required:
        return None
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise where.error("must be an ISO 8601 time, e.g. 2026-11-24T10:00:00Z", key=key) from None
    if not isinstance(value, str) or moment.tzinfo is None:
        raise where.error("must be an ISO 8601 time with a zone, e.g. ...Z", key=key)
    return moment
