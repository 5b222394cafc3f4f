"""A run stopped by a judge that cannot be used: the error names both ways on, `resume` (after
a fix outside) and `run --replace` (other judges), and `--replace` starts the directory over."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from tests.support.cli import cli
from tests.support.experiment.runs import server_rubric, valid_lines, write_dataset
from tests.support.judge_server import JudgeServer


def one_error_line(stderr: str) -> str:
    (line,) = [x for x in stderr.splitlines() if x.startswith("autorubric: error:")]
    return line


def test_a_run_stopped_by_an_unusable_judge_can_be_started_over(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 20)
    out = tmp_path / "exp"
    with JudgeServer(fault_rate=1.0, fault_kinds=("not_found",)) as server:
        rubric = server_rubric(tmp_path / "r.yaml", server.api_base)
        first = cli("run", rubric, data, "--out", out)
        assert first.exit_code == 2, first.stderr
        start_over = f"autorubric run {rubric} {data} --out {out} --replace"
        assert f"autorubric resume {out}" in one_error_line(first.stderr)
        assert one_error_line(first.stderr).endswith(start_over)
        again = cli("resume", out)
        assert again.exit_code == 2
        assert one_error_line(again.stderr).endswith(start_over)
    plain = cli("run", rubric, data, "--out", out, "--judge", "simulated/ok")
    assert plain.exit_code == 2
    assert "pass --replace to start it over" in one_error_line(plain.stderr)
    replaced = cli("run", rubric, data, "--out", out, "--judge", "simulated/ok", "--replace")
    assert replaced.exit_code == 0, replaced.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "completed" and len(manifest["runs"]) == 1
    assert [j["model"] for j in manifest["config"]["judges"]] == ["simulated/ok"]
    assert len(valid_lines(out / "items.jsonl")) == 20


def test_replace_never_empties_a_directory_without_an_experiment(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 2)
    out = tmp_path / "notes"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    rubric = server_rubric(tmp_path / "r.yaml", "http://127.0.0.1:9/v1")
    result = cli("run", rubric, data, "--out", out, "--judge", "simulated/ok", "--replace")
    assert result.exit_code == 2
    assert "--replace empties only an experiment directory" in one_error_line(result.stderr)
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_the_start_over_command_keeps_the_run_s_flags(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 8)
    out = tmp_path / "exp"  # 5 items, one request each: the breaker's 5 hopeless calls
    flags = ["--llm-calls", "per_item", "--limit", "5", "--no-cache", "--timeout", "7"]
    with JudgeServer(fault_rate=1.0, fault_kinds=("not_found",)) as server:
        rubric = server_rubric(tmp_path / "r.yaml", server.api_base)
        first = cli("run", rubric, data, "--out", out, *flags)
    assert first.exit_code == 2, first.stderr
    kept = ["--limit", "5", "--llm-calls", "per_item", "--timeout", "7", "--no-cache"]
    start_over = ["autorubric", "run", str(rubric), str(data), *kept, "--out", str(out)]
    assert one_error_line(first.stderr).endswith(shlex.join([*start_over, "--replace"]))
    # the report of a run that stopped with nothing graded is no success
    report = cli("report", out)
    assert report.exit_code == 2
    assert "the run stopped before it graded any item" in one_error_line(report.stderr)
    again = cli(*start_over[1:], "--judge", "simulated/ok", "--replace")  # the judge changed
    assert again.exit_code == 0, again.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["limit"] == 5 and manifest["config"]["llm_calls"] == "per_item"
    assert manifest["config"]["cache"] is False and manifest["config"]["timeout"] == 7
    assert cli("report", out).exit_code == 0
