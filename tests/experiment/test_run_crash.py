"""Crash safety: SIGKILL a run at random moments and resume; nothing lost, nothing paid twice."""

from __future__ import annotations

import random
from pathlib import Path

from tests.support.cli import cli
from tests.support.experiment.runs import (
    assert_nothing_lost_nothing_rejudged,
    server_rubric,
    sigkill_and_resume,
    write_dataset,
)
from tests.support.judge_server import JudgeServer

N_ITEMS = 50
KILLS = 10


def test_sigkill_resume_loses_nothing_and_never_rejudges(tmp_path: Path) -> None:
    rng = random.Random(1234)
    with JudgeServer(latency=0.12) as server:
        rubric = server_rubric(tmp_path / "rubric.yaml", server.api_base, concurrency=3)
        data = write_dataset(tmp_path / "data.jsonl", N_ITEMS)

        reference = tmp_path / "reference"
        done = cli("run", rubric, data, "--out", reference, "--format", "json", "--no-cache")
        assert done.exit_code == 0, done.stderr
        server.reset()

        exp = tmp_path / "exp"
        snapshots = sigkill_and_resume([rubric, data], exp, server, rng, KILLS)
        requests = server.requests
    assert_nothing_lost_nothing_rejudged(exp, reference, snapshots, requests, N_ITEMS)
