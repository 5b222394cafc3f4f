"""Batch runs against the loopback batch server (docs/guides/batches.md): same records as a direct
run."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from pathlib import Path

import pytest
import yaml

from tests.support.cli import cli
from tests.support.experiment.batch import (
    comparable,
    fast_batches,
    ledger_events,
    processed,
    rubric_and_data,
)
from tests.support.experiment.cache import CRITERIA, cache_rubric
from tests.support.experiment.runs import manifest, server_rubric, valid_lines, write_dataset
from tests.support.judge_server import JudgeServer

N_ITEMS = 500


def test_500_items_batch_run_equals_direct_run_at_half_price(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast_batches(monkeypatch)
    with JudgeServer(batch_delay=0.3) as server:
        rubric = cache_rubric(tmp_path / "rubric.yaml", server.api_base, criteria=CRITERIA[:3])
        data = write_dataset(tmp_path / "data.jsonl", N_ITEMS)
        direct = cli("run", rubric, data, "--out", tmp_path / "direct", "--no-cache")
        assert direct.exit_code == 0, direct.stderr
        server.reset()
        batch = cli(
            "run", rubric, data, "--out", tmp_path / "batch", "--batch", "-f", "json", "--no-cache"
        )
        assert batch.exit_code == 0, batch.stderr
        assert server.request_count == len(server.batch_requests) == N_ITEMS * 3 * 2
        assert set(processed(server).values()) == {1}
        assert len(server.batch_jobs) == 2  # one per judge (model): 1,500 requests each

    reference, batched = comparable(tmp_path / "direct"), comparable(tmp_path / "batch")
    assert len(reference) == N_ITEMS and batched == reference
    report, direct_report = (
        json.loads((tmp_path / name / "report.json").read_text()) for name in ("batch", "direct")
    )
    assert report["score"] == direct_report["score"]  # ci95 too: resampled in dataset order
    # gpt-4.1-mini and gpt-4o-mini have batch prices at half the list price in litellm's map
    assert report["cost"] == pytest.approx(direct_report["cost"] / 2, rel=1e-6)
    assert "batches 2 submitted / 0 in progress / 2 done" in batch.stderr
    assert "batch requests done 3,000" in batch.stderr
    events = ledger_events(tmp_path / "batch")
    prepared = [e for e in events if e["event"] == "prepared"]
    assert sorted(len(e["requests"]) for e in prepared) == [1500, 1500]
    assert {e["status"] for e in events if e["event"] == "status"} >= {"completed"}
    assert manifest(tmp_path / "batch")["config"]["batch"] is True


def test_failures_and_reasks_go_into_follow_up_batches_within_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Faults hit the k-th copy of a request whatever the transport, so a batch run with
    follow-up batches reaches exactly the direct run's votes, attempts included; every input
    file respects the request and byte limits."""
    fast_batches(monkeypatch, MAX_REQUESTS=20, MAX_BYTES=30_000)
    faults = {"fault_rate": 0.2, "fault_kinds": ("server_error", "malformed", "rate_limit")}
    with JudgeServer(batch_delay=0.05, retry_after=0, **faults) as server:
        rubric, data = rubric_and_data(tmp_path, server, 30, judges=1)
        direct = cli("run", rubric, data, "--out", tmp_path / "direct", "--no-cache")
        assert direct.exit_code == 0, direct.stderr
        server.reset()
        batch = cli("run", rubric, data, "--out", tmp_path / "batch", "--batch", "--no-cache")
        assert batch.exit_code == 0, batch.stderr
        inputs = [server.files[job.input_file_id].data for job in server.batch_jobs.values()]
        faulted = sum(r.fault is not None for r in server.batch_requests)

    assert comparable(tmp_path / "batch") == comparable(tmp_path / "direct")
    assert faulted > 5
    assert all(len(data.splitlines()) <= 20 and len(data) <= 30_000 for data in inputs)
    assert max(len(data) for data in inputs) > 30_000 * 0.8  # the byte limit did split
    assert len(inputs) > -(-30 * 3 // 20)  # more than the first round: follow-up batches


def test_expired_batches_are_followed_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An expired batch keeps the answers it has; its other requests go into a new batch."""
    fast_batches(monkeypatch)
    with JudgeServer(batch_delay=0.05) as server:
        rubric, data = rubric_and_data(tmp_path, server, 10, judges=2)
        direct = cli("run", rubric, data, "--out", tmp_path / "direct", "--no-cache")
        assert direct.exit_code == 0, direct.stderr
        server.reset()
        server.expire_batches = 2
        batch = cli("run", rubric, data, "--out", tmp_path / "batch", "--batch", "--no-cache")
        assert batch.exit_code == 0, batch.stderr
        statuses = [job.status for job in server.batch_jobs.values()]
        assert set(processed(server).values()) == {1}  # nothing answered twice
        assert len(server.batch_requests) == 10 * 3 * 2

    def no_attempts(directory: Path) -> dict:
        records = comparable(directory)
        for record in records.values():
            for criterion in record["criteria"]:
                for vote in criterion["votes"]:
                    vote.pop("attempts")
        return records

    assert no_attempts(tmp_path / "batch") == no_attempts(tmp_path / "direct")
    assert statuses == ["expired", "expired", "completed", "completed"]
    attempts = [
        v["attempts"]
        for r in valid_lines(tmp_path / "batch" / "items.jsonl")
        for c in r["criteria"]
        for v in c["votes"]
    ]
    assert sorted(set(attempts)) == [1, 2] and attempts.count(2) == 10 * 3 * 2 // 2
    events = ledger_events(tmp_path / "batch")
    assert [e["status"] for e in events if e["event"] == "status"].count("expired") == 2


def test_provider_without_batch_api_is_an_input_error_before_any_call(
    tmp_path: Path, judge_server: JudgeServer
) -> None:
    rubric = tmp_path / "rubric.yaml"
    spec = {
        "criteria": [{"name": "correct", "requirement": "r"}],
        "grader": {
            "judges": [
                {"model": "openai/ok", "api_base": judge_server.api_base},
                {"model": "ollama/llama3", "id": "claude", "batch": True},
            ]
        },
    }
    rubric.write_text(yaml.safe_dump(spec))
    data = write_dataset(tmp_path / "data.jsonl", 3)
    done = cli("run", rubric, data, "--out", tmp_path / "exp")
    assert done.exit_code == 2
    assert "provider `ollama`" in done.stderr and "'claude'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "exp").exists()
    assert judge_server.request_count == 0


def test_batch_per_judge_and_external_cancel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One judge batches, the other calls directly; a batch cancelled at the provider turns
    its requests into error votes (not retried: someone cancelled it on purpose)."""
    fast_batches(monkeypatch)
    with JudgeServer(batch_delay=0.2) as server:
        rubric = server_rubric(tmp_path / "rubric.yaml", server.api_base, judges=2)
        spec = yaml.safe_load(rubric.read_text())
        spec["grader"]["judges"][0]["batch"] = True
        rubric.write_text(yaml.safe_dump(spec))
        data = write_dataset(tmp_path / "data.jsonl", 5)
        done = cli("run", rubric, data, "--out", tmp_path / "exp", "--no-cache")
        assert done.exit_code == 0, done.stderr
        batched = {r.model for r in server.batch_requests}
        direct = {r.model for r in server.requests if r.batch_id is None}
        assert batched == {"judge-0"} and direct == {"judge-1"}
        assert len(server.batch_requests) == 15

        server.reset()
        server.batch_delay = 60.0
        proc_out = tmp_path / "cancelled"

        def cancel_all() -> None:
            deadline = time.monotonic() + 60
            while not server.batch_jobs and time.monotonic() < deadline:
                time.sleep(0.05)
            for job_id in list(server.batch_jobs):
                request = urllib.request.Request(
                    f"{server.api_base}/batches/{job_id}/cancel", method="POST", data=b""
                )
                urllib.request.urlopen(request).read()
            server.batch_delay = 0.0
            for job in server.batch_jobs.values():
                job.ready_at = 0.0

        canceller = threading.Thread(target=cancel_all)
        canceller.start()
        result = cli("run", rubric, data, "--out", proc_out, "--no-cache")
        canceller.join()
    assert result.exit_code == 3, result.stderr
    errors = {
        v["error"]
        for r in valid_lines(proc_out / "items.jsonl")
        for c in r["criteria"]
        for v in c["votes"]
        if v["judge"] == "j0"
    }
    assert len(errors) == 1 and "cancelled without an answer" in next(iter(errors))
