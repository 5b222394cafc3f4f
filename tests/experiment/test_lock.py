"""One writer per experiment directory (SPEC §11): an OS lock the kernel releases on death."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from engine_support import (
    server_rubric,
    start_cli,
    valid_lines,
    wait_for_lines,
    write_dataset,
)

from autorubric_cli.experiment.lock import (
    LOCK_FILE,
    DirectoryInUse,
    claim_new_directory,
    no_writer,
    writer_lock,
)
from tests.support.cli import cli
from tests.support.judge_server import JudgeServer

ROOT = Path(__file__).resolve().parents[2]
HOLD = """
import sys, time
from pathlib import Path
from autorubric_cli.experiment.lock import writer_lock
with writer_lock(Path(sys.argv[1])):
    print("locked", flush=True)
    time.sleep(60)
"""


def hold_lock(directory: Path) -> subprocess.Popen[str]:
    """A child process that holds the directory's lock until killed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(directory)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_the_lock_is_exclusive_reentrant_in_its_process_and_released_on_exit(
    tmp_path: Path,
) -> None:
    with writer_lock(tmp_path):
        assert (tmp_path / LOCK_FILE).read_text() == f"{os.getpid()}\n"
        with writer_lock(tmp_path):  # the same process locks again for free
            pass
        started = time.monotonic()
        # a reader is refused while a writer holds it
        with (
            pytest.raises(DirectoryInUse, match=f"in use by process {os.getpid()} "),
            no_writer(tmp_path),
        ):
            pass
        assert time.monotonic() - started < 0.5
        assert (tmp_path / LOCK_FILE).read_text() == f"{os.getpid()}\n"
    assert (tmp_path / LOCK_FILE).read_text() == ""  # released: names nobody
    holder = hold_lock(tmp_path)  # another process can take it now
    holder.kill()
    holder.wait()
    with (  # readers share; a writer is refused
        no_writer(tmp_path),
        no_writer(tmp_path),
        pytest.raises(DirectoryInUse, match="another process"),
        writer_lock(tmp_path),
    ):
        pass


def test_the_kernel_releases_the_lock_when_the_holder_is_killed(tmp_path: Path) -> None:
    holder = hold_lock(tmp_path)
    try:
        with (
            pytest.raises(DirectoryInUse, match=f"in use by process {holder.pid} "),
            writer_lock(tmp_path),
        ):
            pass
    finally:
        holder.kill()
        holder.wait()
    with writer_lock(tmp_path):  # no stale lock after a SIGKILL
        pass


def test_no_writer_needs_no_lock_file_and_creates_none(tmp_path: Path) -> None:
    with no_writer(tmp_path):
        pass
    assert not (tmp_path / LOCK_FILE).exists()


def test_claiming_a_used_directory_writes_nothing_into_it(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(Exception, match="not yours"), claim_new_directory(tmp_path, "not yours"):
        pass
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_run_on_a_locked_directory_exits_2_and_report_needs_no_lock(tmp_path: Path) -> None:
    rubric, data = ROOT / "rubrics" / "demo.yaml", ROOT / "datasets" / "demo.jsonl"
    exp = tmp_path / "exp"
    done = cli("run", rubric, data, "--out", exp, "--limit", "3", "--no-cache")
    assert done.exit_code in (0, 1), done.stderr  # 1: the demo's gate on three items
    holder = hold_lock(exp)
    try:
        for command in (["resume", exp], ["run", rubric, data, "--out", exp]):
            busy = cli(*command)
            assert busy.exit_code == 2
            assert f"in use by process {holder.pid} " in busy.stderr
            assert len(busy.stderr.strip().splitlines()) == 1
        report = cli("report", exp, "--format", "json")
        assert report.exit_code == done.exit_code, report.stderr
        assert '"completed": 3' in report.stdout
    finally:
        holder.kill()
        holder.wait()


def test_two_resumes_at_once_one_runs_the_other_exits_2_within_a_second(tmp_path: Path) -> None:
    n_items = 30
    with JudgeServer(latency=0.1) as server:
        rubric = server_rubric(tmp_path / "rubric.yaml", server.api_base, concurrency=2)
        data = write_dataset(tmp_path / "data.jsonl", n_items)
        exp = tmp_path / "exp"
        first = start_cli("run", rubric, data, "--out", exp, "--no-cache")
        assert wait_for_lines(exp / "items.jsonl", 2, first, limit=60)
        first.kill()
        first.wait()

        procs = [start_cli("resume", exp, "--no-cache") for _ in range(2)]
        pids = {str(p.pid) for p in procs}
        started = time.monotonic()
        locked: float | None = None  # when one of them holds the lock (its pid in the file)
        ended: dict[int, float] = {}
        while len(ended) < 1 and time.monotonic() - started < 30:
            if locked is None and (exp / LOCK_FILE).read_text().strip() in pids:
                locked = time.monotonic() - started
            for i, proc in enumerate(procs):
                if i not in ended and proc.poll() is not None:
                    ended[i] = time.monotonic() - started
            time.sleep(0.005)
        assert len(ended) == 1, f"both ended or neither: {ended}"
        loser_i = next(iter(ended))
        loser, winner = procs[loser_i], procs[1 - loser_i]
        _, loser_err = loser.communicate()
        assert loser.returncode == 2, loser_err.decode()
        assert f"in use by process {winner.pid} " in loser_err.decode()
        # Both start their interpreters at once; from the moment one holds the lock, the other
        # is out within a second (alone on an idle machine it exits in ~0.2 s from its start).
        assert locked is not None
        waited = ended[loser_i] - locked
        assert waited < 1.0, f"the second resume exited {waited:.2f}s after the lock was taken"
        _, winner_err = winner.communicate(timeout=120)
        assert winner.returncode == 0, winner_err.decode()

    counts = Counter(line["id"] for line in valid_lines(exp / "items.jsonl"))
    assert set(counts) == {f"it{i:04d}" for i in range(n_items)}
    assert max(counts.values()) == 1, "an item was recorded twice"
