"""Crash safety of pairwise judging: SIGKILL it at random moments and resume. Every comparison
is recorded once, as an uninterrupted comparison records it; none recorded is asked again; and
the requests the loopback server saw beyond the uninterrupted run's are only calls that were in
flight when a kill came (at most the concurrency per kill, and as many answered but not yet in
the call cache)."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

from tests.support.cli import cli
from tests.support.experiment.pairwise import server_rubric, systems
from tests.support.experiment.runs import manifest, sigkill_and_resume, valid_lines
from tests.support.judge_server import JudgeServer

ITEMS = 12
KILLS = 4
CONCURRENCY = 3


def outcomes(directory: Path) -> dict[str, object]:
    return {
        line["id"]: [
            (q["name"], q["outcome"], [(v["order"], v["reply"]) for v in q["votes"]])
            for q in line["questions"]
        ]
        for line in valid_lines(directory / "items.jsonl")
    }


def test_sigkill_resume_records_every_comparison_once_and_asks_none_twice(
    tmp_path: Path,
) -> None:
    rng = random.Random(44)
    with JudgeServer(latency=0.08) as server:
        grader = f"  concurrency: {CONCURRENCY}\n  workers: 0\n"
        rubric = server_rubric(tmp_path / "r.yaml", server.api_base, grader=grader)
        pair = systems(tmp_path, {"new": 0.9, "old": 0.1}, items=ITEMS)
        reference = tmp_path / "reference"
        done = cli("pairwise", rubric, *pair, "--out", reference, "--no-cache")
        assert done.exit_code == 0, done.stderr
        expected_calls = server.request_count
        server.reset()
        exp = tmp_path / "exp"
        snapshots = sigkill_and_resume([rubric, *pair], exp, server, rng, KILLS, "pairwise")
        requests = server.requests
    counts = Counter(line["id"] for line in valid_lines(exp / "items.jsonl"))
    assert len(counts) == ITEMS and max(counts.values()) == 1
    assert outcomes(exp) == outcomes(reference)
    assert manifest(exp)["status"] == "completed"
    for recorded, seen in snapshots:
        later = "\n".join(r.text() for r in requests[seen:])
        for unit in recorded:
            item = int(unit.split("|")[0][1:])
            assert f"[[new-{item}]]" not in later, f"{unit} was asked again after a kill"
    bodies = Counter(json.dumps(r.messages, sort_keys=True) for r in requests)
    assert len(bodies) == expected_calls  # every call of the comparison, asked
    repeated = len(requests) - len(bodies)
    assert repeated <= len(snapshots) * 2 * CONCURRENCY
