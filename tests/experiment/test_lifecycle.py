"""The recorder of a session (experiment/lifecycle.py): what `start` and `finish` leave in
manifest.json for each way a session can end (docs/reference/experiment-directory.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autorubric_cli.core.config import LLMConfig
from autorubric_cli.errors import BudgetStop, StorageError
from autorubric_cli.experiment.lifecycle import RunRecorder
from autorubric_cli.experiment.manifest import InputFile, Manifest, load_manifest
from autorubric_cli.experiment.runner import RunOutcome


def manifest(**fields: object) -> Manifest:
    base: dict[str, object] = {
        "autorubric_version": "0",
        "name": "exp",
        "command": ["autorubric", "run"],
        "created": "2026-01-01T00:00:00Z",
        "updated": "2026-01-01T00:00:00Z",
        "status": "running",
        "seed": 0,
        "config": {},
        "rubric": InputFile(path="/r.yaml", sha256="0"),
        "dataset": InputFile(path="/d.jsonl", sha256="0"),
        "items_total": 3,
    }
    return Manifest.model_validate({**base, **fields})


@pytest.mark.parametrize(
    ("outcome", "status", "error", "reason"),
    [
        (RunOutcome(graded=3), "completed", None, None),
        (RunOutcome(graded=1, interrupted=True), "interrupted", None, None),
        (RunOutcome(graded=1, fatal=RuntimeError("auth refused")), "failed", "auth refused", None),
        (RunOutcome(fatal=StorageError("disk full")), "failed", "disk full", None),
        (
            RunOutcome(graded=2, fatal=BudgetStop("budget reached")),
            "failed",
            "budget reached",
            "budget reached",
        ),
    ],
)
def test_finish_records_how_the_session_ended(
    tmp_path: Path, outcome: RunOutcome, status: str, error: str | None, reason: str | None
) -> None:
    recorder = RunRecorder(tmp_path, manifest(), LLMConfig())
    recorder.start()
    assert load_manifest(tmp_path).status == "running"
    recorder.finish(outcome)
    saved = load_manifest(tmp_path)
    assert (saved.status, saved.error, saved.reason) == (status, error, reason)
    [run] = saved.runs
    assert (run["graded"], run["errored"], run["interrupted"]) == (
        outcome.graded,
        outcome.errored,
        outcome.interrupted,
    )
    assert run["started"] <= run["finished"]
    assert run["settings"]["timeout"] == LLMConfig().timeout  # what the session used


def test_a_resumed_session_starts_without_the_last_error_and_keeps_the_runs(
    tmp_path: Path,
) -> None:
    earlier = {"started": "a", "finished": "b", "graded": 1, "errored": 0, "interrupted": False}
    stopped = manifest(status="failed", error="budget", reason="budget", runs=[earlier])
    recorder = RunRecorder(tmp_path, stopped, LLMConfig())
    recorder.start()
    saved = load_manifest(tmp_path)
    assert (saved.status, saved.error, saved.reason) == ("running", None, None)
    recorder.finish(RunOutcome(graded=2))
    saved = load_manifest(tmp_path)
    assert saved.status == "completed"
    assert [r["graded"] for r in saved.runs] == [1, 2]


def test_a_completed_experiment_stays_completed_when_a_session_adds_nothing(
    tmp_path: Path,
) -> None:
    recorder = RunRecorder(tmp_path, manifest(), LLMConfig())
    recorder.start()
    recorder.finish(RunOutcome())
    recorder.start()
    recorder.finish(RunOutcome())
    assert load_manifest(tmp_path).status == "completed"
    assert len(load_manifest(tmp_path).runs) == 2
