"""A judge answering garbage stops the run alike whether one call asks for one criterion or
for a whole item (docs/design/failures.md, circuit breaker)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.cli import cli
from tests.support.experiment.runs import manifest, server_rubric, valid_lines, write_dataset
from tests.support.judge_server import JudgeServer

ITEMS = 200
ATTEMPTS = 6
CONCURRENCY = 4
# per item, the breaker counts requests, and says how many votes they stood for
FAILED_VOTES = re.compile(
    r"(\d+) (?:votes|per-item requests \((\d+) votes\)) in a row failed after every attempt"
)
ERROR_VOTES = re.compile(r"error votes (\d+)")  # the progress line's


def garbage_run(tmp_path: Path, llm_calls: str) -> tuple[int, int, list[str], Path, int]:
    """(exit code, requests the judge received, error lines, experiment directory, the error
    votes on the last progress line)."""
    tmp_path.mkdir(exist_ok=True)
    data = write_dataset(tmp_path / "data.jsonl", ITEMS)
    with JudgeServer(fault_rate=1.0, fault_kinds=("malformed",)) as server:
        rubric = server_rubric(
            tmp_path / f"{llm_calls}.yaml",
            server.api_base,
            concurrency=CONCURRENCY,
            max_attempts=ATTEMPTS,
            llm_calls=llm_calls,
        )
        out = tmp_path / llm_calls
        result = cli("run", rubric, data, "--out", out)
        requests = server.request_count
    errors = [line for line in result.stderr.splitlines() if line.startswith("autorubric: error:")]
    shown = int(ERROR_VOTES.findall(result.stderr)[-1])
    return result.exit_code, requests, errors, out, shown


@pytest.mark.parametrize("llm_calls", ["per_criterion", "per_item"])
def test_a_garbage_judge_stops_the_run_after_the_breakers_failed_votes(
    tmp_path: Path, llm_calls: str
) -> None:
    code, requests, errors, out, shown = garbage_run(tmp_path, llm_calls)
    assert code == 2, errors
    (line,) = errors
    assert "'j0'" in line and "parse:" in line
    found = FAILED_VOTES.search(line)
    assert found is not None, line
    assert int(found.group(1)) == 10  # grader.breaker.failed_votes, its default
    votes = int(found.group(2) or found.group(1))  # per item: 3 criteria a request
    assert votes == (30 if llm_calls == "per_item" else 10)
    assert shown == votes  # the progress line said what the breaker counted
    assert all(r["status"] == "error" for r in valid_lines(out / "items.jsonl"))
    assert manifest(out)["status"] == "failed"
    # every request of the run is an attempt of a failed vote: the ten that tripped the
    # breaker, and at most one round of those running beside them, never the whole dataset
    assert ATTEMPTS * 10 <= requests < ITEMS * ATTEMPTS / 4, requests


def test_per_item_mode_pays_no_more_than_per_criterion_mode_for_a_garbage_judge(
    tmp_path: Path,
) -> None:
    per_criterion = garbage_run(tmp_path / "c", "per_criterion")
    per_item = garbage_run(tmp_path / "i", "per_item")
    assert per_criterion[0] == per_item[0] == 2
    votes = [FAILED_VOTES.search(run[2][0]) for run in (per_criterion, per_item)]
    assert [v.group(1) for v in votes if v is not None] == ["10", "10"]
    assert per_item[1] <= per_criterion[1], (per_item[1], per_criterion[1])
