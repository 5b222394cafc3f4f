"""`resume` and a run's operational settings (docs/guides/runs.md): its flags override the
recorded settings and are kept; an edit of the rubric's operational settings only is accepted
and used; any other edit is refused; an experiment from before the lock stays resumable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.cli import cli
from tests.support.experiment.runs import server_rubric, write_dataset
from tests.support.judge_server import JudgeServer

SHORT = "timeout: no reply within 0.15 s (grader.timeout)"


def manifest(out: Path) -> dict[str, Any]:
    return json.loads((out / "manifest.json").read_text())


def errors(out: Path) -> set[str | None]:
    """The votes' errors, in each item's newest line."""
    lines = [json.loads(x) for x in (out / "items.jsonl").read_text().splitlines()]
    newest = {line["id"]: line for line in lines}.values()
    return {v["error"] for line in newest for c in line["criteria"] for v in c["votes"]}


def timed_out_run(tmp_path: Path, server: JudgeServer) -> tuple[Path, Path, Path]:
    """A run whose every call (0.4 s at the server) passes its 0.15 s timeout: exit 3."""
    rubric = server_rubric(
        tmp_path / "r.yaml",
        server.api_base,
        timeout=0.15,
        max_attempts=1,
        grader_extra="  breaker: {failed_votes: 100}\n",
    )
    data, out = write_dataset(tmp_path / "d.jsonl", 2), tmp_path / "exp"
    first = cli("run", rubric, data, "--out", out)
    assert first.exit_code == 3, first.stderr
    assert errors(out) == {SHORT}
    return rubric, data, out


def test_resume_flags_override_the_recorded_settings_and_are_kept(tmp_path: Path) -> None:
    with JudgeServer(latency=0.4) as server:
        _, _, out = timed_out_run(tmp_path, server)
        flags = ("--timeout", "5", "--max-attempts", "2", "--concurrency", "3")
        done = cli("resume", out, "--retry-errors", *flags)
        assert done.exit_code == 0, done.stderr
        again = cli("resume", out)  # nothing left: the settings it records are the kept ones
        assert again.exit_code == 0, again.stderr
    assert errors(out) == {None}
    used = [
        (r["settings"]["timeout"], r["settings"]["max_attempts"]) for r in manifest(out)["runs"]
    ]
    assert used == [(0.15, 1), (5.0, 2), (5.0, 2)]
    assert [r["settings"]["concurrency"] for r in manifest(out)["runs"]] == [4, 3, 3]
    assert manifest(out)["config"]["timeout"] == 5.0


def test_an_edit_of_operational_settings_is_used_and_any_other_refused(tmp_path: Path) -> None:
    with JudgeServer(latency=0.4) as server:
        rubric, _, out = timed_out_run(tmp_path, server)
        text = rubric.read_text()
        rubric.write_text("# longer calls\n" + text.replace("timeout: 0.15", "timeout: 5"))
        done = cli("resume", out, "--retry-errors")
        assert done.exit_code == 0, done.stderr
        assert errors(out) == {None}
        assert [r["settings"]["timeout"] for r in manifest(out)["runs"]] == [0.15, 5.0]
        rubric.write_text(rubric.read_text().replace("is correct", "is right"))
        refused = cli("resume", out)
    assert refused.exit_code == 2
    assert f"{rubric}: rubric changed since the run started in what decides its results" in (
        refused.stderr
    )
    copy = out / "rubric.yaml"  # the experiment's copy, edited: the same rule
    rubric.write_text(text)
    copy.write_text(copy.read_text().replace("weight: -5", "weight: -4"))
    assert cli("resume", out).exit_code == 2


def test_an_experiment_from_before_the_lock_is_judged_by_its_intact_copy(tmp_path: Path) -> None:
    rubric = server_rubric(tmp_path / "r.yaml", "http://127.0.0.1:9/v1")
    data, out = write_dataset(tmp_path / "d.jsonl", 2), tmp_path / "exp"
    first = cli("run", rubric, data, "--out", out, "--judge", "simulated/ok")
    assert first.exit_code == 0, first.stderr
    older = {k: v for k, v in manifest(out).items() if k not in ("rubric_lock", "run_flags")}
    (out / "manifest.json").write_text(json.dumps(older))
    rubric.write_text(rubric.read_text().replace("concurrency: 4", "concurrency: 2"))
    done = cli("resume", out)  # the copy is as the run started: the source's edit is judged
    assert done.exit_code == 0, done.stderr
    assert manifest(out)["rubric_lock"]["settings"]["concurrency"] == 2
    assert manifest(out)["runs"][-1]["settings"]["concurrency"] == 2
    (out / "manifest.json").write_text(json.dumps(older))
    copy = out / "rubric.yaml"
    copy.write_text(copy.read_text().replace("concurrency: 4", "concurrency: 3"))
    refused = cli("resume", out)  # neither file is as the run started: nothing to judge by
    assert refused.exit_code == 2
    assert "predates operational-only edits" in refused.stderr
