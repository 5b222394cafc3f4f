"""Ctrl-C stops at once: no seconds spent on reports after the in-flight calls
finish; the screen says the report was not written and how to get it. Checked by the order
of events, not by time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support import TEST_KEY_ENV
from tests.support.judge_server import JudgeServer


def rubric_for(path: Path, api_base: str) -> Path:
    path.write_text(
        "criteria:\n  - name: correct\n    requirement: The answer is correct\n"
        "grader:\n  judges:\n"
        f"    - {{model: openai/slow, api_base: '{api_base}', api_key_env: {TEST_KEY_ENV}}}\n"
        "  concurrency: 2\n  workers: 0\n"
    )
    return path


def records(items: Path) -> int:
    return len(items.read_text().splitlines()) if items.exists() else 0


def test_sigint_writes_no_report_and_says_how_to_render_it(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(f'{{"id": "i{n}", "submission": "answer {n}"}}\n' for n in range(40)))
    out = tmp_path / "exp"
    env = {**os.environ, TEST_KEY_ENV: "sk-test"}
    with JudgeServer(latency=0.2) as server:
        rubric = rubric_for(tmp_path / "r.yaml", server.api_base)
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "autorubric_cli",
                "run",
                str(rubric),
                str(data),
                "--out",
                str(out),
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 120  # a bound on waiting, not a tested duration
            while records(out / "items.jsonl") < 2:
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline
                time.sleep(0.02)
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
    text = stderr.decode()
    assert proc.returncode == 130, text
    stopping = text.index("stopping: finishing in-flight calls")
    said = text.index("report not written")
    assert stopping < said
    assert f"autorubric report {out}" in text and f"autorubric resume {out}" in text
    assert not (out / "report.json").exists() and not (out / "report.html").exists()
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    rendered = subprocess.run(
        [sys.executable, "-m", "autorubric_cli", "report", str(out), "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(rendered.stdout)
    assert report["status"] == "interrupted"
    assert report["items"]["completed"] == records(out / "items.jsonl") < 40
