"""Helpers for the run tests: a rubric bound to the loopback server, datasets, CLI processes.

`start_cli` starts a process, for tests where the process is the point; every other CLI test
runs in-process through `tests.support.cli.cli`.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from tests.support import cli_process
from tests.support.cli import KEY_ENV, KEY_VALUE, UNSET, cli
from tests.support.cli_process import CliProcess

__all__ = ["KEY_ENV", "KEY_VALUE"]  # re-exported: the run tests' rubrics name this key


def server_rubric(
    path: Path,
    api_base: str,
    *,
    concurrency: int = 4,
    timeout: float = 2.0,
    max_attempts: int = 6,
    judges: int = 1,
    gate: str = "",
    llm_calls: str = "per_criterion",
    grader_extra: str = "",
    judge_extra: str = "",
) -> Path:
    """A rubric of three criteria (two binary, one multi-choice) for `judges` judges on the
    loopback server; `judge_extra`: more lines of each judge's (indented as its keys)."""
    judge_lines = "".join(
        f"""
    - model: openai/judge-{j}
      id: j{j}
      api_base: {api_base}
      api_key_env: {KEY_ENV}
      max_concurrency: {concurrency}{judge_extra}"""
        for j in range(judges)
    )
    path.write_text(
        f"""name: engine-test
criteria:
  - name: correct
    requirement: "The answer is correct"
  - name: harmful
    requirement: "The answer gives harmful advice"
    weight: -5
  - name: style
    requirement: "How good is the style?"
    options:
      - {{label: Bad, value: 0.0}}
      - {{label: Okay, value: 0.5}}
      - {{label: Great, value: 1.0}}
grader:
  judges:{judge_lines}
  seed: 7
  concurrency: {concurrency}
  timeout: {timeout}
  max_attempts: {max_attempts}
  llm_calls: {llm_calls}
  retry: {{initial_wait: 0.01, max_wait: 0.05, max_retry_after: 0.3}}
{grader_extra}{gate}"""
    )
    return path


def token(i: int) -> str:
    return f"[[item-{i:04d}]]"


def write_dataset(path: Path, n: int) -> Path:
    with path.open("w") as handle:
        for i in range(n):
            item = {
                "id": f"it{i:04d}",
                "submission": f"Answer {token(i)}: the capital of France is Paris. Variant {i}.",
                "ground_truth": {"correct": "MET" if i % 3 else "UNMET"},
            }
            handle.write(json.dumps(item) + "\n")
    return path


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env[KEY_ENV] = KEY_VALUE
    for name in UNSET:
        env.pop(name, None)
    return env


def start_cli(*args: str | Path) -> CliProcess:
    """`autorubric ARGS` in a process of its own (forked warm), with the test key set."""
    return cli_process.start_cli(*args, env=cli_env())


def valid_lines(items: Path) -> list[dict[str, Any]]:
    """Every readable record line (torn lines skipped)."""
    if not items.exists():
        return []
    out = []
    for raw in items.read_bytes().splitlines():
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        out.append(obj)
    return out


def wait_for_lines(items: Path, at_least: int, proc: CliProcess, limit: float) -> bool:
    """True once items.jsonl holds `at_least` readable lines; False if the process ended first."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if len(valid_lines(items)) >= at_least:
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.02)
    raise AssertionError(f"no progress in {limit}s")


def ok(*args: object) -> str:
    """`autorubric ARGS` in-process; it must exit 0. Its stdout."""
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def untimed_records(directory: Path) -> list[dict[str, Any]]:
    """Every record line, in file order, without its `duration_s` (which differs run to run)."""
    lines = [orjson.loads(raw) for raw in (directory / "items.jsonl").read_bytes().splitlines()]
    for line in lines:
        line.pop("duration_s")
    return lines


def manifest(directory: Path) -> dict[str, Any]:
    return json.loads((directory / "manifest.json").read_text())


def sigkill_and_resume(
    run_args: list[Any],
    exp: Path,
    server: Any,
    rng: Any,
    kills: int,
    command: str = "run",
    kill_times: list[float] | None = None,
) -> list[tuple[set[str], int]]:
    """Start `command` (`run`, or `pairwise`), SIGKILL it at random moments after progress and
    resume, `kills` times; then let the last resume finish. Returns (ids recorded, requests
    seen) at each kill; `kill_times` gets each kill's `time.monotonic()`."""
    items = exp / "items.jsonl"
    snapshots: list[tuple[set[str], int]] = []
    proc = start_cli(command, *run_args, "--out", exp)
    while len(snapshots) < kills:
        before = len(valid_lines(items))
        if not wait_for_lines(items, before + 1, proc, limit=60):
            break
        time.sleep(rng.uniform(0.0, 0.3))
        proc.kill()
        proc.wait()
        if kill_times is not None:
            kill_times.append(time.monotonic())
        recorded = {line["id"] for line in valid_lines(items)}
        snapshots.append((recorded, server.request_count))
        assert manifest(exp)["status"] == "running"  # a SIGKILL leaves no chance to update it
        proc = start_cli("resume", exp)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    assert len(snapshots) >= kills, f"only {len(snapshots)} kills before the run finished"
    return snapshots


def comparable(directory: Path) -> dict[str, object]:
    """Per item: status, score and every vote's outcome and shuffle (not timing or caching)."""
    records = {}
    for line in valid_lines(directory / "items.jsonl"):
        votes = [
            (v["judge"], v["sample"], v["verdict"], v["option_index"], v["shuffle_order"])
            for c in line["criteria"]
            for v in c["votes"]
        ]
        records[line["id"]] = (line["status"], line["score"], votes)
    return records


def vote_summary(directory: Path) -> dict[str, tuple[float | None, list[object]]]:
    out = {}
    for line in valid_lines(directory / "items.jsonl"):
        votes = [
            (v["judge"], v["verdict"], v["option_index"], v["shuffle_order"])
            for c in line["criteria"]
            for v in c["votes"]
        ]
        out[line["id"]] = (line["score"], votes)
    return out


def assert_nothing_lost_nothing_rejudged(
    exp: Path, reference: Path, snapshots: list[tuple[set[str], int]], requests: list[Any], n: int
) -> None:
    counts = Counter(line["id"] for line in valid_lines(exp / "items.jsonl"))
    assert set(counts) == {f"it{i:04d}" for i in range(n)}
    assert max(counts.values()) == 1, "an item was recorded twice"
    assert vote_summary(exp) == vote_summary(reference)
    for recorded, seen in snapshots:
        later = "\n".join(r.text() for r in requests[seen:])
        for item_id in recorded:
            assert token(int(item_id[2:])) not in later, f"{item_id} was judged again after a kill"
    assert manifest(exp)["status"] == "completed"
