"""The progress line and the report count alike (docs/guides/runs.md, "Progress"): retries
per call, error votes, and an unpriced model's cost as `n/a`, never $0."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.cli import cli
from tests.support.experiment.runs import server_rubric, write_dataset
from tests.support.judge_server import JudgeServer


def last_progress(stderr: str) -> str:
    return [line for line in stderr.splitlines() if line.startswith("items ")][-1]


def figure(line: str, name: str) -> str:
    found = re.search(rf"{name} (\S+)", line)
    assert found is not None, line
    return found.group(1)


@pytest.mark.parametrize("llm_calls", ["per_criterion", "per_item"])
def test_progress_and_report_count_retries_and_cost_alike(tmp_path: Path, llm_calls: str) -> None:
    data, out = write_dataset(tmp_path / "d.jsonl", 12), tmp_path / "exp"
    kinds = ("server_error", "malformed")  # retried calls, and re-asked unusable replies
    with JudgeServer(fault_rate=0.3, fault_kinds=kinds, fault_seed=5) as server:
        rubric = server_rubric(tmp_path / "r.yaml", server.api_base, llm_calls=llm_calls)
        result = cli("run", rubric, data, "--out", out, "--format", "json")
        requests = server.request_count
        again = cli("run", rubric, data, "--out", tmp_path / "again", "--format", "json")
    assert result.exit_code in (0, 3), result.stderr
    report = json.loads(result.stdout)
    line = last_progress(result.stderr)
    retries = int(figure(line, "retries"))
    assert retries == report["retries"] > 0
    calls = 12 * (1 if llm_calls == "per_item" else 3)  # one call per vote request
    assert retries == requests - calls  # per call: every request beyond the first of each
    assert int(figure(line, "error votes")) == report["error_votes"]
    assert report["cost"] is None  # the model is unpriced: n/a in both, never $0
    assert "cost n/a" in line
    assert json.loads(again.stdout)["cost_saved"] is None  # answered by the cache: n/a too
    assert "(saved n/a)" in last_progress(again.stderr)
