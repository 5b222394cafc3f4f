"""Claude and Gemini batches survive a crash (docs/guides/batches.md): a SIGKILLed run's batches are
re-attached by `resume`, an orphan (created, its id never recorded) is found at the provider,
and random kills never make the provider answer a request twice."""

from __future__ import annotations

import random
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.batch_fake import BatchFake
from tests.support.experiment.batch import comparable, fast_batches, ledger_events
from tests.support.experiment.provider_batch import (
    FAKES,
    bodies,
    offline,
    provider_rubric,
    resume_here,
    run_here,
)
from tests.support.experiment.runs import manifest, start_cli, write_dataset

PROVIDERS = sorted(FAKES)
FOUND_BY = {"anthropic": "listing", "gemini": "display_name"}


def wait_until(condition: Callable[[], bool], proc: subprocess.Popen[bytes]) -> bool:
    """True once `condition` holds; False when the process ended first."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if condition():
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.005)
    raise AssertionError("condition not reached in 60 s")


def grading_since(directory: Path, moment: float) -> Callable[[], bool]:
    """The process started after `moment` is grading: it has rewritten the manifest, and
    batching has begun."""
    path = directory / "manifest.json"
    return lambda: (
        path.exists() and path.stat().st_mtime > moment and bool(ledger_events(directory))
    )


def kill(proc: subprocess.Popen[bytes]) -> None:
    proc.kill()
    proc.wait()


def submitted(directory: Path) -> int:
    return sum(e["event"] == "submitted" for e in ledger_events(directory))


def finish_now(server: BatchFake) -> None:
    """The provider finishes every batch while nobody watches."""
    server.batch_delay = server.create_delay = 0.0
    for job in server.jobs.values():
        job.ready_at = 0.0


@pytest.mark.parametrize("provider", PROVIDERS)
def test_resume_reattaches_and_finds_the_orphan(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    offline(monkeypatch)
    fast_batches(monkeypatch, SEND_DELAY_S=0.5)
    with FAKES[provider](batch_delay=0.05) as server:
        rubric = provider_rubric(tmp_path / "rubric.yaml", provider, server.api_base)
        data = write_dataset(tmp_path / "data.jsonl", 6)
        run_here(rubric, data, tmp_path / "direct", batch=False)
        direct = server.direct_requests

        outcomes = {}
        for name, killed_when in (
            ("orphan", lambda: bool(server.jobs)),  # created, the reply still held back
            ("recorded", lambda: submitted(tmp_path / "recorded") >= 1),
        ):
            server.reset()
            server.batch_delay, server.create_delay = 60.0, 60.0 if name == "orphan" else 0.0
            exp = tmp_path / name
            proc = start_cli("run", rubric, data, "--out", exp, "--batch", "--no-cache")
            assert wait_until(killed_when, proc)
            kill(proc)
            assert (submitted(exp) == 0) if name == "orphan" else (submitted(exp) >= 1)
            finish_now(server)
            resume_here(exp)
            outcomes[name] = (server.batch_requests, server.direct_requests)

    for name, (batched, called) in outcomes.items():
        assert called == []  # nothing called directly
        assert bodies(batched) == bodies(direct)  # every request sent and answered once
        assert set(Counter(p.key for p in batched).values()) == {1}
        assert comparable(tmp_path / name) == comparable(tmp_path / "direct")
        assert manifest(tmp_path / name)["status"] == "completed"
    found = [e for e in ledger_events(tmp_path / "orphan") if e["event"] == "submitted"]
    assert [e.get("found_by") for e in found] == [FOUND_BY[provider]]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_random_sigkills_during_a_batch_run_then_resume(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Up to three SIGKILLs at random moments once the (re)started process is grading
    (collecting, creating, polling, reading results), each followed by a resume; the provider
    answers every request exactly once and the records equal a direct run's."""
    rng = random.Random(f"kills-{provider}")
    offline(monkeypatch)
    fast_batches(monkeypatch, SEND_DELAY_S=0.2, MAX_REQUESTS=20)
    items = 24
    with FAKES[provider](batch_delay=1.5, create_delay=0.3) as server:
        rubric = provider_rubric(tmp_path / "rubric.yaml", provider, server.api_base)
        data = write_dataset(tmp_path / "data.jsonl", items)
        run_here(rubric, data, tmp_path / "direct", batch=False)
        direct = server.direct_requests
        server.reset()

        exp = tmp_path / "exp"
        proc = start_cli("run", rubric, data, "--out", exp, "--batch", "--no-cache")
        kills, moment = 0, time.time()
        while kills < 3:
            if not wait_until(grading_since(exp, moment), proc):
                break
            time.sleep(rng.uniform(0.0, 0.8))
            if proc.poll() is not None:
                break
            kill(proc)
            kills += 1
            moment = time.time()
            proc = start_cli("resume", exp, "--no-cache")
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        batched, called = server.batch_requests, server.direct_requests

    assert kills >= 2, f"the run ended after {kills} kills"  # a late resume may just finish
    assert called == []
    assert bodies(batched) == bodies(direct)
    assert set(Counter(p.key for p in batched).values()) == {1}
    assert comparable(exp) == comparable(tmp_path / "direct")
    assert manifest(exp)["status"] == "completed"
