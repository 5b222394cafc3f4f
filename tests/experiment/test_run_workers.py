"""`run` with judge worker processes (`grader.workers`): the same results as in-process calls, no
worker outlives a killed run, and a dead endpoint still stops the run with one line."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from test_run_breaker import error_lines

from tests.support import closed_port
from tests.support.cli import cli
from tests.support.experiment.runs import (
    comparable,
    manifest,
    server_rubric,
    start_cli,
    valid_lines,
    wait_for_lines,
    write_dataset,
)
from tests.support.judge_server import JudgeServer


def children(pid: int) -> list[int]:
    """The process's child pids (Linux /proc)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(child) for child in text]
    return found


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_worker_processes_grade_exactly_like_in_process_calls(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 30)
    outs = {}
    with JudgeServer(latency=0.005) as server:
        for workers in ("0", "2"):
            rubric = server_rubric(
                tmp_path / f"r{workers}.yaml",
                server.api_base,
                concurrency=8,
                grader_extra=f"  workers: {workers}\n",
            )
            outs[workers] = tmp_path / f"exp{workers}"
            result = cli("run", rubric, data, "--out", outs[workers], "--no-cache")
            assert result.exit_code == 0, result.stderr
    assert manifest(outs["2"])["config"]["workers"] == 2
    assert len(valid_lines(outs["2"] / "items.jsonl")) == 30
    assert comparable(outs["2"]) == comparable(outs["0"])


def test_a_killed_run_leaves_no_worker_behind(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 400)
    with JudgeServer(latency=0.05) as server:
        rubric = server_rubric(
            tmp_path / "r.yaml", server.api_base, concurrency=4, grader_extra="  workers: 2\n"
        )
        proc = start_cli("run", rubric, data, "--out", tmp_path / "exp", "--no-cache")
        assert wait_for_lines(tmp_path / "exp" / "items.jsonl", 5, proc, limit=120)
        workers = children(proc.pid)
        assert len(workers) == 2 and all(running(pid) for pid in workers)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 10
        while any(running(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(running(pid) for pid in workers)  # they saw the socket close and left


def test_a_closed_port_stops_the_run_through_a_worker(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 300)
    api_base = f"http://127.0.0.1:{closed_port()}/v1"
    rubric = server_rubric(
        tmp_path / "r.yaml", api_base, concurrency=16, grader_extra="  workers: 1\n"
    )
    out = tmp_path / "exp"
    result = cli("run", rubric, data, "--out", out)
    assert result.exit_code == 2, result.stderr
    (line,) = error_lines(result.stderr)
    assert "'j0'" in line and f"connection refused to {api_base}" in line
    assert valid_lines(out / "items.jsonl") == []
    assert manifest(out)["status"] == "failed"
