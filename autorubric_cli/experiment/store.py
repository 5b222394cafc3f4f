"""items.jsonl: append-only records, one line per finished item; never rewritten (SPEC §5)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
from pydantic import ValidationError

from autorubric_cli.core.records import ItemRecord

FSYNC_INTERVAL_S = 1.0


class RecordWriter:
    """One record per line: flushed per record; fsynced within a second (`sync_if_due` runs
    once a second during a run) and at close."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle = path.open("ab")
        self._last_sync = time.monotonic()
        self._dirty = False
        if self._handle.tell() > 0 and not _ends_with_newline(path):
            # A crash left a torn last line: close it off so new records start on their own line.
            self._handle.write(b"\n")
            self._sync()

    def append(self, record: ItemRecord) -> None:
        self._handle.write(orjson.dumps(record.model_dump(mode="json")) + b"\n")
        self._handle.flush()
        self._dirty = True
        self.sync_if_due()

    def sync_if_due(self) -> None:
        """fsync when records were appended since the last fsync, at most once a second."""
        if self._dirty and time.monotonic() - self._last_sync >= FSYNC_INTERVAL_S:
            self._sync()

    def _sync(self) -> None:
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._last_sync = time.monotonic()
        self._dirty = False

    def close(self) -> None:
        if not self._handle.closed:
            self._sync()
            self._handle.close()


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


@dataclass
class ReadIssues:
    """Lines that could not be read back: a torn last line is expected after a crash."""

    bad_lines: list[int] = field(default_factory=list)

    def warnings(self, path: Path) -> list[str]:
        return [f"{path}:{n}: incomplete or unreadable record ignored" for n in self.bad_lines]


def _id_and_status(raw: bytes) -> tuple[str, str] | None:
    """(id, status) of a complete record line; None for a torn or unreadable one.

    The whole line is parsed: a torn record can end in `}` (a nested object), so no shortcut on
    the line's prefix is sound, and a torn line taken as recorded would never be graded again.
    """
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or "id" not in obj or "status" not in obj:
        return None
    return str(obj["id"]), str(obj["status"])


def latest_lines(path: Path, issues: ReadIssues) -> dict[str, tuple[int, str]]:
    """id -> (line number, status) of the newest line for each id."""
    latest: dict[str, tuple[int, str]] = {}
    if not path.exists():
        return latest
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            found = _id_and_status(raw)
            if found is None:
                issues.bad_lines.append(number)
            else:
                latest[found[0]] = (number, found[1])
    return latest


def iter_latest_records(path: Path, issues: ReadIssues) -> Iterator[ItemRecord]:
    """The newest record of every id, in file order, one at a time (two passes, flat memory)."""
    latest = {number for number, _ in latest_lines(path, issues).values()}
    return iter_records_at(path, latest, issues)


def iter_records_at(path: Path, numbers: set[int], issues: ReadIssues) -> Iterator[ItemRecord]:
    """The records on the given line numbers, in file order."""
    if not numbers:
        return
    last = max(numbers)
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number in numbers:
                try:
                    yield ItemRecord.model_validate(orjson.loads(raw))
                except (ValidationError, orjson.JSONDecodeError):
                    issues.bad_lines.append(number)
            if number >= last:
                return


def records_by_id(
    path: Path, latest: dict[str, tuple[int, str]], ids: set[str]
) -> dict[str, ItemRecord]:
    """The newest records for the given ids, reading only their lines (`latest` from
    `latest_lines`); used to reuse good votes on --retry-errors."""
    numbers = {latest[i][0] for i in ids if i in latest}
    return {r.id: r for r in iter_records_at(path, numbers, ReadIssues())}
