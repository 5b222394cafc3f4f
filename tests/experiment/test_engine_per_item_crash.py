"""Crash safety in per-item mode (SPEC §10): SIGKILL at random moments, resume; nothing lost,
nothing re-judged, the same results as an uninterrupted run."""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

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
from test_engine_crash import scores

from tests.support.judge_server import JudgeServer, default_answer, item_entries

N_ITEMS = 24
KILLS = 4


def drop_style_when_not_alone(body: dict[str, Any]) -> str:
    """Hashed answers, without the `style` entry unless it is asked alone: two calls per item."""
    reply = json.loads(default_answer(body))
    entries = reply.get("criteria")
    if entries is not None and len(entries) > 1:
        reply["criteria"] = [e for e in entries if e["criterion"] != "style"]
    return json.dumps(reply)


def test_sigkill_resume_in_per_item_mode_loses_nothing_and_never_rejudges(tmp_path: Path) -> None:
    rng = random.Random(4321)
    with JudgeServer(latency=0.15, answer=drop_style_when_not_alone) as server:
        rubric = server_rubric(
            tmp_path / "rubric.yaml", server.api_base, concurrency=2, llm_calls="per_item"
        )
        data = write_dataset(tmp_path / "data.jsonl", N_ITEMS)

        reference = tmp_path / "reference"
        done = run_cli("run", rubric, data, "--out", reference, "--format", "json", "--no-cache")
        assert done.returncode == 0, done.stderr
        assert server.request_count == 2 * N_ITEMS
        assert all(item_entries(r.body) is not None for r in server.requests)
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
            assert manifest(exp)["status"] == "running"
            proc = start_cli("resume", exp)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        requests = server.requests

    assert len(snapshots) >= KILLS, f"only {len(snapshots)} kills before the run finished"
    lines = valid_lines(items)
    counts = Counter(line["id"] for line in lines)
    assert set(counts) == {f"it{i:04d}" for i in range(N_ITEMS)}
    assert max(counts.values()) == 1, "an item was recorded twice"
    assert scores(exp) == scores(reference)
    for recorded, seen in snapshots:
        later = "\n".join(r.text() for r in requests[seen:])
        for item_id in recorded:
            assert token(int(item_id[2:])) not in later, f"{item_id} was judged again after a kill"
    # Calls in flight at a kill were cached once their reply parsed: at most the last attempt
    # of each killed item is sent again.
    assert len(requests) <= 2 * N_ITEMS + 2 * KILLS
    assert manifest(exp)["status"] == "completed"
