"""Batches survive a crash (docs/guides/batches.md): SIGKILL at every phase, resume, nothing sent
twice."""

from __future__ import annotations

import random
import signal
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.cli import cli
from tests.support.cli_process import CliProcess
from tests.support.experiment.batch import (
    comparable,
    fast_batches,
    ledger_events,
    processed,
    rubric_and_data,
)
from tests.support.experiment.runs import manifest, start_cli, valid_lines
from tests.support.judge_server import JudgeServer

N_ITEMS = 40


def wait_until(condition: Callable[[], bool], proc: CliProcess, limit: float) -> bool:
    """True once `condition` holds; False when the process ended first."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if condition():
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.005)
    raise AssertionError(f"condition not reached in {limit}s")


def manifest_saved_after(directory: Path, moment: float) -> Callable[[], bool]:
    """The run has started grading: its manifest was (re)written after `moment`."""
    path = directory / "manifest.json"
    return lambda: path.exists() and path.stat().st_mtime > moment


def creating(directory: Path, server: JudgeServer) -> Callable[[], bool]:
    """Between upload and create: a batch is uploaded, exists at the provider (the server is
    still answering the create), and its id is not recorded."""

    def check() -> bool:
        events = ledger_events(directory)
        uploaded = {e["local"] for e in events if e["event"] == "uploaded"}
        submitted = {e["local"] for e in events if e["event"] == "submitted"}
        at_provider = {job.metadata.get("autorubric_local") for job in server.batch_jobs.values()}
        return bool((uploaded - submitted) & at_provider)

    return check


def polling(directory: Path, server: JudgeServer) -> Callable[[], bool]:
    """Every batch prepared (and not abandoned) has its id; one is running at the provider."""

    def check() -> bool:
        events = ledger_events(directory)
        prepared = {e["local"] for e in events if e["event"] == "prepared"}
        prepared -= {e["local"] for e in events if e["event"] == "abandoned"}
        submitted = {e["batch_id"] for e in events if e["event"] == "submitted"}
        ids = {e["local"] for e in events if e["event"] == "submitted"}
        running = {i for i, job in server.batch_jobs.items() if job.status == "in_progress"}
        return bool(prepared) and prepared <= ids and bool(submitted & running)

    return check


def kill(proc: CliProcess) -> None:
    proc.kill()
    proc.wait()


def test_sigkill_in_every_batch_phase_then_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(15)
    fast_batches(monkeypatch, SEND_DELAY_S=0.3, MAX_REQUESTS=50)
    with JudgeServer(batch_delay=0.8, create_delay=0.5) as server:
        rubric, data = rubric_and_data(tmp_path, server, N_ITEMS, judges=2)
        direct = cli("run", rubric, data, "--out", tmp_path / "direct", "--no-cache")
        assert direct.exit_code == 0, direct.stderr
        server.reset()

        exp = tmp_path / "exp"
        moment = time.time()
        proc = start_cli("run", rubric, data, "--out", exp, "--batch")
        phases = [
            ("collection", lambda: manifest_saved_after(exp, moment)(), 0.1),
            ("between upload and create", creating(exp, server), 0.0),
            ("polling", polling(exp, server), 0.0),
            # random moments while a batch runs at the provider (it runs 0.8 s): a resume that
            # only collects already-finished batches could otherwise end before the kill
            ("random", polling(exp, server), rng.uniform(0.0, 0.3)),
            ("random", polling(exp, server), rng.uniform(0.0, 0.3)),
        ]
        killed = []
        for name, condition, delay in phases:
            if not wait_until(condition, proc, limit=60):
                break
            time.sleep(delay)
            kill(proc)
            killed.append(name)
            assert manifest(exp)["status"] == "running"
            moment = time.time()
            proc = start_cli("resume", exp)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        counts = processed(server)
        chat_calls = server.request_count - len(server.batch_requests)
        locals_at_provider = {
            job.metadata["autorubric_local"] for job in server.batch_jobs.values()
        }

    assert killed == [phase for phase, _, _ in phases], f"run ended after kills {killed}"
    assert len(counts) == N_ITEMS * 3 * 2 and set(counts.values()) == {1}
    assert chat_calls == 0
    lines = valid_lines(exp / "items.jsonl")
    assert Counter(line["id"] for line in lines) == Counter(f"it{i:04d}" for i in range(N_ITEMS))
    assert comparable(exp) == comparable(tmp_path / "direct")
    assert manifest(exp)["status"] == "completed"
    events = ledger_events(exp)
    assert any(e.get("found_by") == "metadata" for e in events)  # the orphan was found
    recorded = {e["local"] for e in events if e["event"] == "submitted"}
    assert locals_at_provider <= recorded  # every batch at the provider is known


def test_stop_leaves_batches_running_and_resume_collects_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast_batches(monkeypatch)
    with JudgeServer(batch_delay=60.0) as server:
        rubric, data = rubric_and_data(tmp_path, server, 6, judges=2)
        exp = tmp_path / "exp"
        proc = start_cli("run", rubric, data, "--out", exp, "--batch")
        assert wait_until(lambda: len(server.batch_jobs) == 2, proc, limit=60)
        assert wait_until(
            lambda: sum(e["event"] == "submitted" for e in ledger_events(exp)) == 2, proc, 10
        )
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err.decode()
        assert manifest(exp)["status"] == "interrupted"
        assert [job.status for job in server.batch_jobs.values()] == ["in_progress"] * 2
        assert valid_lines(exp / "items.jsonl") == []
        report = cli("report", exp, "-f", "json")
        assert report.exit_code == 0, report.stderr  # a report works on what there is

        for job in server.batch_jobs.values():
            job.ready_at = 0.0  # the provider finishes them while nobody watches
        done = cli("resume", exp)
        assert done.exit_code == 0, done.stderr
        assert len(server.batch_jobs) == 2 and set(processed(server).values()) == {1}
        assert server.request_count == 6 * 3 * 2
    assert len(valid_lines(exp / "items.jsonl")) == 6


def test_resume_no_batch_uses_finished_batches_and_calls_the_rest_directly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast_batches(monkeypatch)
    with JudgeServer(batch_delay=0.5) as server:
        rubric, data = rubric_and_data(tmp_path, server, 6, judges=2)
        direct = cli("run", rubric, data, "--out", tmp_path / "direct", "--no-cache")
        assert direct.exit_code == 0, direct.stderr

        for name, delay in (("finished", 0.5), ("running", 60.0)):
            server.reset()
            server.batch_delay = delay
            exp = tmp_path / name
            proc = start_cli("run", rubric, data, "--out", exp, "--batch", "--no-cache")
            assert wait_until(
                lambda exp=exp: sum(e["event"] == "submitted" for e in ledger_events(exp)) == 2,
                proc,
                60,
            )
            kill(proc)
            time.sleep(0.6)
            done = cli("resume", exp, "--no-batch")
            assert done.exit_code == 0, done.stderr
            chat = [r for r in server.requests if r.batch_id is None]
            if name == "finished":  # every answer was paid in a batch: none is asked again
                assert chat == [] and len(server.batch_requests) == 36
            else:
                assert "is still in_progress" in done.stderr
                assert len(chat) == 36 and server.batch_requests == []
            assert comparable(exp) == comparable(tmp_path / "direct")
