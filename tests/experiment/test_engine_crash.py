"""Crash safety: SIGKILL a run at random moments and resume; nothing lost, nothing paid twice."""

from __future__ import annotations

import random
import time
from collections import Counter
from pathlib import Path

from engine_support import (
    manifest,
    run_cli,
    server_rubric,
    start_cli,
    token,
    valid_lines,
    wait_for_lines,
    write_dataset,
)

from tests.support.judge_server import JudgeServer

N_ITEMS = 50
KILLS = 10


def scores(directory: Path) -> dict[str, tuple[float | None, list[object]]]:
    out = {}
    for line in valid_lines(directory / "items.jsonl"):
        votes = [
            (v["judge"], v["verdict"], v["option_index"], v["shuffle_order"])
            for c in line["criteria"]
            for v in c["votes"]
        ]
        out[line["id"]] = (line["score"], votes)
    return out


def test_sigkill_resume_loses_nothing_and_never_rejudges(tmp_path: Path) -> None:
    rng = random.Random(1234)
    with JudgeServer(latency=0.12) as server:
        rubric = server_rubric(tmp_path / "rubric.yaml", server.api_base, concurrency=3)
        data = write_dataset(tmp_path / "data.jsonl", N_ITEMS)

        reference = tmp_path / "reference"
        done = run_cli("run", rubric, data, "--out", reference, "--format", "json", "--no-cache")
        assert done.returncode == 0, done.stderr
        server.reset()

        exp = tmp_path / "exp"
        items = exp / "items.jsonl"
        snapshots: list[tuple[set[str], int]] = []
        proc = start_cli("run", rubric, data, "--out", exp)
        while len(snapshots) < KILLS:
            before = len(valid_lines(items))
            if not wait_for_lines(items, before + 1, proc, limit=60):
                break
            time.sleep(rng.uniform(0.0, 0.3))
            proc.kill()
            proc.wait()
            recorded = {line["id"] for line in valid_lines(items)}
            snapshots.append((recorded, server.request_count))
            assert manifest(exp)["status"] == "running"  # a SIGKILL leaves no chance to update it
            proc = start_cli("resume", exp)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()

    assert len(snapshots) >= KILLS, f"only {len(snapshots)} kills before the run finished"
    lines = valid_lines(items)
    counts = Counter(line["id"] for line in lines)
    assert set(counts) == {f"it{i:04d}" for i in range(N_ITEMS)}
    assert max(counts.values()) == 1, "an item was recorded twice"
    assert scores(exp) == scores(reference)
    requests = server.requests
    for recorded, seen in snapshots:
        later = "\n".join(r.text() for r in requests[seen:])
        for item_id in recorded:
            assert token(int(item_id[2:])) not in later, f"{item_id} was judged again after a kill"
    assert manifest(exp)["status"] == "completed"
