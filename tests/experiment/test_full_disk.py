"""A full disk stops the run with one line and exit 2; no half record counts; resume finishes.

The disk is "full" for a child process through RLIMIT_FSIZE (no mount needed): with SIGXFSZ
ignored, a write past the limit writes what fits, then fails with EFBIG, like ENOSPC.
"""

from __future__ import annotations

import errno
import json
import resource
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from autorubric_cli.core.records import ItemRecord
from autorubric_cli.errors import StorageError
from autorubric_cli.experiment import store
from autorubric_cli.experiment.store import ReadIssues, RecordWriter, iter_latest_records
from tests.support.experiment.runs import cli_env

ROOT = Path(__file__).resolve().parents[2]
RUBRIC = ROOT / "rubrics" / "demo.yaml"
DATA = ROOT / "datasets" / "demo.jsonl"


def limited_cli(limit: int | None, *args: object) -> subprocess.CompletedProcess[str]:
    def preexec() -> None:
        if limit is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = {**cli_env(), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "autorubric_cli", *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=preexec,
    )


def lines(directory: Path) -> list[dict[str, Any]]:
    data = (directory / "items.jsonl").read_bytes()
    assert data == b"" or data.endswith(b"\n"), "a torn line was left behind"
    out = [orjson.loads(raw) for raw in data.splitlines()]  # every line is a whole record
    for line in out:
        line.pop("duration_s")
    return out


def error_line(stderr: str) -> str:
    errors = [x for x in stderr.splitlines() if x.startswith("autorubric: error:")]
    assert len(errors) == 1, stderr
    return errors[0]


def test_a_full_disk_stops_the_run_and_resume_finishes_it(tmp_path: Path) -> None:
    reference = tmp_path / "reference"
    done = limited_cli(None, "run", RUBRIC, DATA, "--out", reference, "--no-cache")
    assert done.returncode in (0, 1), done.stderr  # 1: the demo's gate

    exp = tmp_path / "exp"
    full = limited_cli(40_000, "run", RUBRIC, DATA, "--out", exp, "--no-cache")
    assert full.returncode == 2, full.stderr
    message = error_line(full.stderr)
    assert "items.jsonl: cannot write: File too large" in message
    assert f"autorubric resume {exp}" in message and "Traceback" not in full.stderr
    partial = lines(exp)
    assert 0 < len(partial) < len(lines(reference))
    manifest = json.loads((exp / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "File too large" in manifest["error"]

    still_full = limited_cli(40_000, "resume", exp, "--no-cache")
    assert still_full.returncode == 2 and "File too large" in error_line(still_full.stderr)
    assert lines(exp) == partial  # nothing half-written, nothing lost

    resumed = limited_cli(None, "resume", exp, "--no-cache")  # space is back
    assert resumed.returncode == done.returncode, resumed.stderr
    final = lines(exp)
    counts = Counter(r["id"] for r in final)
    assert max(counts.values()) == 1
    assert {r["id"]: r for r in final} == {r["id"]: r for r in lines(reference)}
    assert json.loads((exp / "manifest.json").read_text())["status"] == "completed"


def test_no_room_for_the_first_file_leaves_a_directory_run_can_start_again(
    tmp_path: Path,
) -> None:
    exp = tmp_path / "exp"
    full = limited_cli(1000, "run", RUBRIC, DATA, "--out", exp, "--no-cache")  # < the rubric
    assert full.returncode == 2
    assert "cannot write: File too large" in error_line(full.stderr)
    assert "run again" in full.stderr
    assert [p.name for p in exp.iterdir()] == [".lock"]
    again = limited_cli(None, "run", RUBRIC, DATA, "--out", exp, "--no-cache")
    assert again.returncode in (0, 1), again.stderr


def test_an_unwritable_place_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    result = limited_cli(None, "run", RUBRIC, DATA, "--out", tmp_path / "file" / "exp")
    assert result.returncode == 2
    assert "cannot write: Not a directory" in error_line(result.stderr)


def test_merge_on_a_full_disk_leaves_nothing_and_can_be_rerun(tmp_path: Path) -> None:
    for k in (1, 2):
        made = limited_cli(None, "run", RUBRIC, DATA, "--out", tmp_path / f"s{k}",
                           "--shard", f"{k}/2", "--no-cache")  # fmt: skip
        assert made.returncode in (0, 1), made.stderr
    out = tmp_path / "merged"
    full = limited_cli(20_000, "merge", out, tmp_path / "s1", tmp_path / "s2")
    assert full.returncode == 2
    assert "cannot write: File too large" in error_line(full.stderr)
    assert [p.name for p in out.iterdir()] == [".lock"]
    merged = limited_cli(None, "merge", out, tmp_path / "s1", tmp_path / "s2")
    assert merged.returncode in (0, 1), merged.stderr
    assert len(lines(out)) == 48


def test_a_failed_append_is_cut_off_and_the_next_one_starts_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "items.jsonl"
    writer = RecordWriter(path)
    writer.append(ItemRecord(id="a", index=0, status="ok", score=0.5))
    real_write = store.os.write

    def half_then_full(fd: int, data: Any) -> int:
        if len(data) > 10:
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store.os, "write", half_then_full)
    with pytest.raises(StorageError, match="items.jsonl: cannot write: No space left on device"):
        writer.append(ItemRecord(id="b", index=1, status="ok", score=0.5))
    monkeypatch.setattr(store.os, "write", real_write)
    writer.append(ItemRecord(id="c", index=2, status="ok", score=0.5))
    writer.close()
    issues = ReadIssues()
    assert [r.id for r in iter_latest_records(path, issues)] == ["a", "c"]
    assert issues.bad_lines == []
