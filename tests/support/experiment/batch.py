"""Helpers for the batch tests (docs/guides/batches.md): fast batch timing, ledger reads, record
comparison."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.support.experiment.cache import PAID_FIELDS
from tests.support.experiment.runs import server_rubric, valid_lines, write_dataset
from tests.support.judge_server import JudgeServer


def fast_batches(monkeypatch: pytest.MonkeyPatch, **overrides: float) -> None:
    """Short send delay and polling for the CLI subprocesses (they inherit the environment)."""
    settings = {"SEND_DELAY_S": 0.1, "POLL_S": 0.05, **overrides}
    for name, value in settings.items():
        monkeypatch.setenv(f"AUTORUBRIC_BATCH_{name}", str(value))


def ledger_events(directory: Path) -> list[dict[str, Any]]:
    path = directory / "batches.jsonl"
    if not path.exists():
        return []
    events = []
    for raw in path.read_bytes().splitlines():
        try:
            events.append(orjson.loads(raw))
        except orjson.JSONDecodeError:
            continue
    return events


def without_accounting(record: dict[str, Any]) -> dict[str, Any]:
    """A record minus what legitimately differs between transports: what was paid, and when."""
    out = {k: v for k, v in record.items() if k not in PAID_FIELDS}
    out["criteria"] = [
        {
            **c,
            "votes": [
                {k: v for k, v in vote.items() if k not in ("cached", "cost")}
                for vote in c["votes"]
            ],
        }
        for c in record["criteria"]
    ]
    return out


def comparable(directory: Path) -> dict[str, dict[str, Any]]:
    return {line["id"]: without_accounting(line) for line in valid_lines(directory / "items.jsonl")}


def processed(server: JudgeServer) -> Counter[str]:
    """How many times the server answered each distinct request (model + messages)."""
    return Counter(json.dumps([r.model, r.messages], sort_keys=True) for r in server.batch_requests)


def rubric_and_data(
    tmp_path: Path, server: JudgeServer, items: int, judges: int = 2
) -> tuple[Path, Path]:
    """The run tests' rubric on this server and a dataset of `items` items."""
    rubric = server_rubric(tmp_path / "rubric.yaml", server.api_base, judges=judges)
    return rubric, write_dataset(tmp_path / "data.jsonl", items)
