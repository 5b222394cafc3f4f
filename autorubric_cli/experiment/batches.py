"""batches.jsonl: the append-only, fsynced record of every provider batch (docs/guides/batches.md).

Invariant: a batch's request ids are on disk BEFORE its file is uploaded, and its batch id as
soon as the provider returned it, so `resume` can re-attach to every batch that may exist and
never submits a recorded request again. One JSON object per line, an `event` each:
`prepared` (local id, judge, request ids, time), `uploaded` (input file id), `submitted` (batch
id; `found_by` when an orphan was found on resume: `metadata` (OpenAI),
`display_name` (Gemini) or `listing` (Anthropic)), `status` (provider status and
counts), `abandoned` (never created at the provider: its requests may be sent again).
A torn last line (a crash mid-write) is ignored: the event it held had not been acted on.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from autorubric_cli.core.config import LLMConfig
from autorubric_cli.judges.batch.ledger import RecordedBatch
from autorubric_cli.judges.batch.transport import BatchCoordinator, BatchSettings, batch_enabled

LEDGER = "batches.jsonl"


class BatchLedgerFile:
    """The ledger of one experiment directory; the file is created on the first event."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / LEDGER
        self._handle: BinaryIO | None = None

    def recorded(self) -> list[RecordedBatch]:
        """Every batch prepared so far, in order, with its latest known state."""
        batches: dict[str, RecordedBatch] = {}
        if not self.path.is_file():
            return []
        with self.path.open("rb") as handle:
            for raw in handle:
                try:
                    event = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(event, dict):
                    apply_event(batches, event)
        return list(batches.values())

    def prepared(self, batch: RecordedBatch) -> None:
        self._append(
            {
                "event": "prepared",
                "local": batch.local,
                "judge": batch.judge,
                "requests": batch.keys,
                "time": batch.prepared_at,
            }
        )

    def uploaded(self, local: str, input_file_id: str) -> None:
        self._append({"event": "uploaded", "local": local, "input_file_id": input_file_id})

    def submitted(self, local: str, batch_id: str, found_by: str | None = None) -> None:
        event: dict[str, Any] = {"event": "submitted", "local": local, "batch_id": batch_id}
        if found_by is not None:
            event["found_by"] = found_by
        self._append(event)

    def status(self, local: str, status: str, counts: dict[str, int]) -> None:
        self._append({"event": "status", "local": local, "status": status, "counts": counts})

    def abandoned(self, local: str, reason: str) -> None:
        self._append({"event": "abandoned", "local": local, "reason": reason})

    def _append(self, event: dict[str, Any]) -> None:
        if self._handle is None:
            self._handle = self.path.open("ab")
            if self._handle.tell() > 0 and not _ends_with_newline(self.path):
                self._handle.write(b"\n")  # close off a torn last line
        event["at"] = time.time()
        self._handle.write(orjson.dumps(event) + b"\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def apply_event(batches: dict[str, RecordedBatch], event: dict[str, Any]) -> None:
    """Fold one ledger line into the batches' state; unknown or stray lines change nothing."""
    local = str(event.get("local"))
    kind = event.get("event")
    if kind == "prepared":
        batches[local] = RecordedBatch(
            local=local,
            judge=str(event.get("judge")),
            keys=[str(k) for k in event.get("requests") or []],
            prepared_at=float(event.get("time") or 0.0),
        )
        return
    batch = batches.get(local)
    if batch is None:
        return
    if kind == "uploaded":
        batch.input_file_id = str(event.get("input_file_id"))
    elif kind == "submitted":
        batch.batch_id = str(event.get("batch_id"))
        batch.status = "submitted"
    elif kind == "status":
        batch.status = str(event.get("status"))
        batch.counts = dict(event.get("counts") or {})
    elif kind == "abandoned":
        batch.status = "abandoned"


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def uses_batches(config: LLMConfig) -> bool:
    return any(batch_enabled(config, judge) for judge in config.judges)


def batch_coordinator(directory: Path, config: LLMConfig) -> BatchCoordinator | None:
    """The experiment's batch coordinator: when a judge batches, or batches were recorded
    (`resume --no-batch` still takes the answers of finished ones). None otherwise."""
    if not uses_batches(config) and not (directory / LEDGER).is_file():
        return None
    settings = BatchSettings.from_env()
    return BatchCoordinator(BatchLedgerFile(directory), settings, directory.name)


def batch_window(config: LLMConfig, criteria: int, window: int) -> int:
    """Items in flight: in batch mode enough for each batched judge to fill a whole batch, not
    just the call slots."""
    batched = [j for j in config.judges if batch_enabled(config, j)]
    if not batched:
        return window
    per_batch = BatchSettings.from_env().max_requests or 50_000  # enough to fill a batch
    return max(window, *(-(-per_batch // max(criteria * j.samples, 1)) for j in batched))
