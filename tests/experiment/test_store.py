"""items.jsonl and manifest.json: append-only, torn-line tolerant, atomic."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from autorubric_cli.core.records import ItemRecord
from autorubric_cli.errors import InputError
from autorubric_cli.experiment import manifest as manifest_mod
from autorubric_cli.experiment.manifest import InputFile, Manifest, load_manifest, save_manifest
from autorubric_cli.experiment.store import (
    ReadIssues,
    RecordWriter,
    iter_latest_records,
    latest_lines,
    records_by_id,
)


def record(item_id: str, status: str = "ok", score: float = 0.5) -> ItemRecord:
    return ItemRecord(id=item_id, index=0, status=status, score=score)  # type: ignore[arg-type]


def test_append_writes_one_line_per_record_and_never_rewrites(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    writer = RecordWriter(path)
    writer.append(record("a"))
    first = path.read_bytes()
    writer.append(record("b"))
    writer.close()
    data = path.read_bytes()
    assert data.startswith(first)
    assert data.count(b"\n") == 2
    assert [orjson.loads(line)["id"] for line in data.splitlines()] == ["a", "b"]


def test_newest_line_wins_and_file_order_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    writer = RecordWriter(path)
    for rec in (record("a", "error", 0.1), record("b"), record("a", "ok", 0.9)):
        writer.append(rec)
    writer.close()
    records = list(iter_latest_records(path, ReadIssues()))
    assert [(r.id, r.score) for r in records] == [("b", 0.5), ("a", 0.9)]
    assert latest_lines(path, ReadIssues()) == {"a": (3, "ok"), "b": (2, "ok")}
    assert records_by_id(path, latest_lines(path, ReadIssues()), {"a"})["a"].score == 0.9


def test_torn_last_line_is_ignored_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    writer = RecordWriter(path)
    writer.append(record("a"))
    writer.close()
    with path.open("ab") as handle:
        handle.write(b'{"id": "b", "status": "ok", "sco')
    issues = ReadIssues()
    assert [r.id for r in iter_latest_records(path, issues)] == ["a"]
    assert issues.bad_lines == [2]
    assert "items.jsonl:2" in issues.warnings(path)[0]


def test_writer_after_torn_line_starts_a_fresh_line(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_bytes(orjson.dumps(record("a").model_dump(mode="json")) + b"\n" + b'{"id": "b"')
    writer = RecordWriter(path)
    writer.append(record("c"))
    writer.close()
    issues = ReadIssues()
    assert [r.id for r in iter_latest_records(path, issues)] == ["a", "c"]
    assert issues.bad_lines == [2]


def make_manifest() -> Manifest:
    return Manifest(
        autorubric_version="t",
        name="n",
        command=["x"],
        created="c",
        updated="u",
        status="running",
        seed=1,
        config={},
        rubric=InputFile(path="r", sha256="0"),
        dataset=InputFile(path="d", sha256="0"),
        items_total=3,
    )


def test_manifest_round_trip_and_atomic_replace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_manifest(tmp_path, make_manifest())
    before = (tmp_path / "manifest.json").read_bytes()
    loaded = load_manifest(tmp_path)
    assert loaded.status == "running" and loaded.items_total == 3

    def boom(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(manifest_mod.os, "replace", boom)
    changed = make_manifest()
    changed.status = "completed"
    with pytest.raises(OSError):
        save_manifest(tmp_path, changed)
    assert (tmp_path / "manifest.json").read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.json"]


def test_missing_or_invalid_manifest_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not an experiment directory"):
        load_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text("{nope")
    with pytest.raises(InputError, match="manifest.json is invalid"):
        load_manifest(tmp_path)


def test_fsync_happens_at_close(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = os.fsync
    monkeypatch.setattr(
        "autorubric_cli.experiment.store.os.fsync", lambda fd: calls.append(fd) or real(fd)
    )
    writer = RecordWriter(tmp_path / "items.jsonl")
    writer.append(record("a"))
    assert calls == []  # within the first second: flushed, not yet fsynced
    writer.close()
    assert len(calls) == 1


def test_sync_if_due_fsyncs_pending_records_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real = os.fsync
    monkeypatch.setattr(
        "autorubric_cli.experiment.store.os.fsync", lambda fd: calls.append(fd) or real(fd)
    )
    writer = RecordWriter(tmp_path / "items.jsonl")
    writer.append(record("a"))
    writer.sync_if_due()
    assert calls == []  # not yet a second since the writer opened
    monkeypatch.setattr("autorubric_cli.experiment.store.FSYNC_INTERVAL_S", 0.0)
    writer.sync_if_due()
    assert len(calls) == 1  # the pending record is now on disk
    writer.sync_if_due()
    assert len(calls) == 1  # nothing new appended: no needless fsync
    writer.close()


def test_a_torn_line_ending_inside_a_nested_object_is_not_taken_as_recorded(
    tmp_path: Path,
) -> None:
    path = tmp_path / "items.jsonl"
    full = orjson.dumps(
        ItemRecord(id="b", index=1, status="ok", usage={"prompt_tokens": 3}).model_dump(mode="json")
    )
    torn = full[: full.index(b"}") + 1]  # cut right after the nested `usage` object
    assert torn.endswith(b"}") and torn != full
    path.write_bytes(orjson.dumps(record("a").model_dump(mode="json")) + b"\n" + torn + b"\n")
    issues = ReadIssues()
    assert set(latest_lines(path, issues)) == {"a"}  # `b` must be graded again by resume
    assert issues.bad_lines == [2]
