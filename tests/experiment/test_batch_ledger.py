"""batches.jsonl (docs/guides/batches.md): append-only events folded back into each batch's
state."""

from __future__ import annotations

from pathlib import Path

import orjson

from autorubric_cli.experiment.batches import LEDGER, BatchLedgerFile
from autorubric_cli.judges.batch.ledger import RecordedBatch


def test_events_fold_into_batch_states(tmp_path: Path) -> None:
    ledger = BatchLedgerFile(tmp_path)
    assert ledger.recorded() == []
    for local in ("a", "b", "c", "d"):
        ledger.prepared(RecordedBatch(local, "j0", [f"{local}1", f"{local}2"], 100.0))
    ledger.uploaded("a", "file-a")
    ledger.submitted("a", "batch-a")
    ledger.status("a", "in_progress", {"total": 2})
    ledger.status("a", "completed", {"total": 2, "completed": 2})
    ledger.uploaded("b", "file-b")
    ledger.submitted("b", "batch-b", found_by="metadata")
    ledger.abandoned("c", "upload failed")
    ledger.close()

    states = {b.local: b for b in BatchLedgerFile(tmp_path).recorded()}
    assert list(states) == ["a", "b", "c", "d"]
    assert states["a"] == RecordedBatch(
        "a",
        "j0",
        ["a1", "a2"],
        100.0,
        "file-a",
        "batch-a",
        "completed",
        {"total": 2, "completed": 2},
    )
    assert (states["b"].batch_id, states["b"].status) == ("batch-b", "submitted")
    assert states["c"].status == "abandoned" and states["c"].batch_id is None
    assert (states["d"].status, states["d"].input_file_id, states["d"].batch_id) == (
        "prepared",
        None,
        None,
    )
    events = [orjson.loads(line) for line in (tmp_path / LEDGER).read_bytes().splitlines()]
    assert [e["event"] for e in events][:5] == ["prepared"] * 4 + ["uploaded"]
    assert events[0]["requests"] == ["a1", "a2"] and events[0]["judge"] == "j0"
    assert events[9]["found_by"] == "metadata" and "found_by" not in events[5]
    assert all("at" in e for e in events)


def test_a_torn_last_line_is_ignored_and_closed_off(tmp_path: Path) -> None:
    ledger = BatchLedgerFile(tmp_path)
    ledger.prepared(RecordedBatch("a", "j0", ["k"], 1.0))
    ledger.close()
    path = tmp_path / LEDGER
    path.write_bytes(path.read_bytes() + b'{"event": "submitted", "local": "a", "batch')
    assert BatchLedgerFile(tmp_path).recorded()[0].batch_id is None
    again = BatchLedgerFile(tmp_path)
    again.submitted("a", "batch-1")
    again.close()
    assert BatchLedgerFile(tmp_path).recorded()[0].batch_id == "batch-1"
    assert path.read_bytes().count(b"\n") == 3


def test_events_for_unknown_batches_change_nothing(tmp_path: Path) -> None:
    (tmp_path / LEDGER).write_bytes(
        b'{"event": "submitted", "local": "zz", "batch_id": "b"}\n[1]\n'
    )
    assert BatchLedgerFile(tmp_path).recorded() == []
