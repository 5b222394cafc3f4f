"""One writer per experiment directory (docs/guides/batches.md): an OS lock the kernel releases on
death."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from autorubric_cli.experiment.lock import (
    LOCK_FILE,
    DirectoryInUse,
    claim_new_directory,
    no_writer,
    writer_lock,
)
from tests.support.cli import cli
from tests.support.cli_process import CliProcess
from tests.support.experiment.runs import (
    server_rubric,
    start_cli,
    valid_lines,
    wait_for_lines,
    write_dataset,
)
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


def refused_while_held(directory: Path) -> str:
    """A reader tries the directory from another thread while this one holds the writer lock:
    the refusal must arrive while the lock is still held (a reader that waited for the lock
    would never answer before the release, and the thread would still be blocked)."""
    answers: queue.Queue[str] = queue.Queue()

    def reader() -> None:
        try:
            with no_writer(directory):
                answers.put("not refused")
        except DirectoryInUse as exc:
            answers.put(str(exc))

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    try:
        answer = answers.get(timeout=60)  # a hang guard, not a speed bound
    except queue.Empty:
        raise AssertionError("the reader waited for the writer's lock") from None
    thread.join()
    return re.search(r"in use by process \d+ ", answer).group(0)  # type: ignore[union-attr]


def test_the_lock_is_exclusive_reentrant_in_its_process_and_released_on_exit(
    tmp_path: Path,
) -> None:
    with writer_lock(tmp_path):
        assert (tmp_path / LOCK_FILE).read_text() == f"{os.getpid()}\n"
        with writer_lock(tmp_path):  # the same process locks again for free
            pass
        # a reader is refused at once while a writer holds it: it does not wait for the lock
        assert refused_while_held(tmp_path) == f"in use by process {os.getpid()} "
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


def test_two_resumes_at_once_one_runs_the_other_exits_2_without_waiting(tmp_path: Path) -> None:
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
        # Event order, not a time bound: the loser is out while the winner still holds the lock
        # and still has items to grade (it does not wait for the lock to be released).
        loser_i, holder, recorded = first_exit(procs, exp)
        loser, winner = procs[loser_i], procs[1 - loser_i]
        _, loser_err = loser.communicate()
        assert loser.returncode == 2, loser_err.decode()
        assert f"in use by process {winner.pid} " in loser_err.decode()
        assert holder == str(winner.pid), "the loser exited while nobody held the lock"
        assert recorded < n_items, "the loser waited until the winner had graded everything"
        _, winner_err = winner.communicate(timeout=120)
        assert winner.returncode == 0, winner_err.decode()

    counts = Counter(line["id"] for line in valid_lines(exp / "items.jsonl"))
    assert set(counts) == {f"it{i:04d}" for i in range(n_items)}
    assert max(counts.values()) == 1, "an item was recorded twice"


def first_exit(procs: list[CliProcess], exp: Path) -> tuple[int, str, int]:
    """(index of the first process to exit, the lock's holder then, items recorded then); the
    other process must still be running at that moment."""
    deadline = time.monotonic() + 120  # a hang guard, not a speed bound
    while time.monotonic() < deadline:
        ended = [i for i, proc in enumerate(procs) if proc.poll() is not None]
        if ended:
            holder = (exp / LOCK_FILE).read_text().strip()
            recorded = len(valid_lines(exp / "items.jsonl"))
            assert len(ended) == 1, "both resumes ended: neither was refused while one ran"
            return ended[0], holder, recorded
        time.sleep(0.005)
    raise AssertionError("neither resume exited")
