"""Crash safety in per-item mode (docs/guides/per-item.md): SIGKILL at random moments, resume;
nothing lost, nothing re-judged, the same results as an uninterrupted run."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tests.support.cli import cli
from tests.support.experiment.runs import (
    assert_nothing_lost_nothing_rejudged,
    server_rubric,
    sigkill_and_resume,
    write_dataset,
)
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
        done = cli("run", rubric, data, "--out", reference, "--format", "json", "--no-cache")
        assert done.exit_code == 0, done.stderr
        assert server.request_count == 2 * N_ITEMS
        assert all(item_entries(r.body) is not None for r in server.requests)
        server.reset()

        exp = tmp_path / "exp"
        snapshots = sigkill_and_resume([rubric, data], exp, server, rng, KILLS)
        requests = server.requests
    assert_nothing_lost_nothing_rejudged(exp, reference, snapshots, requests, N_ITEMS)
    # Calls in flight at a kill were cached once their reply parsed: at most the last attempt
    # of each killed item is sent again.
    assert len(requests) <= 2 * N_ITEMS + 2 * KILLS
