"""`report` on an experiment a run is writing writes nothing into it, and no report.json older
than the last session is left after an interrupted run or resume (docs/guides/runs.md)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from runner_support import invoke

from tests.support import TEST_KEY_ENV
from tests.support.judge_server import JudgeServer

ENV = {**os.environ, TEST_KEY_ENV: "sk-test"}


def records(items: Path) -> int:
    return len(items.read_text().splitlines()) if items.exists() else 0


def start(*args: str | Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "autorubric_cli", *map(str, args)]
    return subprocess.Popen(command, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for_records(proc: subprocess.Popen[bytes], items: Path, count: int) -> None:
    deadline = time.monotonic() + 120  # a bound on waiting, not a tested duration
    while records(items) < count:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)


def interrupt(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=120)
    assert proc.returncode == 130


def test_report_during_a_run_and_after_interruptions_leaves_no_stale_report(
    tmp_path: Path,
) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(f'{{"id": "i{n}", "submission": "answer {n}"}}\n' for n in range(1000)))
    out = tmp_path / "exp"
    with JudgeServer(latency=0.5) as server:  # the run outlasts the reports below
        rubric = tmp_path / "r.yaml"
        rubric.write_text(
            "criteria:\n  - name: correct\n    requirement: The answer is correct\n"
            "grader:\n  judges:\n    - {model: openai/slow, api_base: "
            f"'{server.api_base}', api_key_env: {TEST_KEY_ENV}}}\n  concurrency: 2\n  workers: 0\n"
        )
        run = start("run", rubric, data, "--out", out)
        try:
            wait_for_records(run, out / "items.jsonl", 2)
            code, stdout, stderr = invoke("report", out, "--format", "json", env=ENV)
            assert code == 0, stderr
            assert json.loads(stdout)["status"] == "running"
            assert not (out / "report.json").exists()  # the writer's directory: untouched
            code, _, stderr = invoke("report", out, "--format", "html", env=ENV)
            assert code == 2 and "give -o PATH" in stderr
            assert not (out / "report.html").exists()
            interrupt(run)
        finally:
            if run.poll() is None:
                run.kill()
        assert not (out / "report.json").exists()
        code, _, stderr = invoke("report", out, env=ENV)  # no writer now: report.json written
        assert code == 0, stderr
        assert json.loads((out / "report.json").read_text())["status"] == "interrupted"

        done = records(out / "items.jsonl")
        resume = start("resume", out)
        try:
            wait_for_records(resume, out / "items.jsonl", done + 2)
            interrupt(resume)
        finally:
            if resume.poll() is None:
                resume.kill()
    assert not (out / "report.json").exists()  # the interrupted report's file is gone too
