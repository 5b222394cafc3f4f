"""`run` / `resume` / `report` end to end through the CLI: every exit code of
docs/reference/exit-codes.md."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.support.cli import cli
from tests.support.experiment.runs import (
    KEY_VALUE,
    manifest,
    server_rubric,
    start_cli,
    valid_lines,
    wait_for_lines,
    write_dataset,
)
from tests.support.judge_server import JudgeServer

ROOT = Path(__file__).resolve().parents[2]
DEMO_RUBRIC = ROOT / "rubrics" / "demo.yaml"
DEMO_DATA = ROOT / "datasets" / "demo.jsonl"


@pytest.fixture
def ungated(tmp_path: Path) -> Path:
    """The demo rubric without its gate, so small --limit runs exit 0."""
    text = DEMO_RUBRIC.read_text()
    path = tmp_path / "demo-ungated.yaml"
    path.write_text(text[: text.index("gate:")])
    return path


def test_demo_runs_offline_passes_its_gate_and_says_simulated(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = cli("run", DEMO_RUBRIC, DEMO_DATA, "--out", out)
    assert result.exit_code == 0, result.stderr
    assert "SIMULATED" in result.stdout and "Gate: PASSED" in result.stdout
    report = json.loads((out / "report.json").read_text())
    assert report["simulated"] is True
    assert report["items"] == {"total": 48, "completed": 48, "errored": 0, "pending": 0}
    assert report["gate"]["passed"] is True
    assert manifest(out)["status"] == "completed"
    assert len(valid_lines(out / "items.jsonl")) == 48


def test_fail_under_fails_the_gate_with_exit_1_and_junit_names_the_check(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    junit = tmp_path / "junit.xml"
    result = cli(
        "run",
        DEMO_RUBRIC,
        DEMO_DATA,
        "--out",
        out,
        "--fail-under",
        "0.99",
        "--junit",
        junit,
        "--limit",
        "10",
    )
    assert result.exit_code == 1, result.stderr
    xml = junit.read_text()
    assert 'name="score.mean min 0.990"' in xml and "<failure" in xml
    report = json.loads((out / "report.json").read_text())
    assert report["items"]["total"] == 10
    check = next(c for c in report["gate"]["checks"] if c.get("min") == 0.99)
    assert check == {
        "metric": "score.mean",
        "min": 0.99,
        "value": report["score"]["mean"],
        "passed": False,
    }


def test_invalid_rubric_exits_2_with_one_line_and_creates_nothing(tmp_path: Path) -> None:
    rubric = tmp_path / "bad.yaml"
    rubric.write_text("criteria:\n  - requirement: x\n    weight: .nan\n")
    out = tmp_path / "never"
    result = cli("run", rubric, DEMO_DATA, "--out", out)
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0
    assert f"{rubric}:3: criteria[0].weight:" in result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists()


def test_invalid_dataset_line_exits_2_before_any_output(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(DEMO_DATA.read_text().splitlines()[0] + "\n{not json\n")
    out = tmp_path / "never"
    result = cli("run", DEMO_RUBRIC, data, "--out", out)
    assert result.exit_code == 2
    assert f"{data}:2:" in result.stderr and "invalid JSON" in result.stderr
    assert not out.exists()


def test_run_refuses_an_existing_experiment_directory(ungated: Path, tmp_path: Path) -> None:
    out = tmp_path / "exp"
    assert cli("run", ungated, DEMO_DATA, "--out", out, "--limit", "3").exit_code == 0
    before = (out / "items.jsonl").read_bytes()
    again = cli("run", ungated, DEMO_DATA, "--out", out)
    assert again.exit_code == 2 and "autorubric resume" in again.stderr
    assert (out / "items.jsonl").read_bytes() == before


def test_errored_items_exit_3_and_retry_errors_reuses_good_votes(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 4)
    with JudgeServer(fault_rate=0.5, fault_kinds=("server_error",), fault_seed=3) as server:
        rubric = server_rubric(tmp_path / "r.yaml", server.api_base, max_attempts=1)
        out = tmp_path / "exp"
        result = cli("run", rubric, data, "--out", out, "--format", "json")
        assert result.exit_code == 3, result.stderr
        report = json.loads(result.stdout)
        assert report["items"]["errored"] > 0
        assert report["error_votes"] > 0
        errored_votes = report["error_votes"]
        first_requests = server.request_count
        assert first_requests == 4 * 3

        server.fault_rate = 0.0
        retry = cli("resume", out, "--retry-errors", "--format", "json")
        assert retry.exit_code == 0, retry.stderr
        # only the errored votes were asked again
        assert server.request_count - first_requests == errored_votes
    final = json.loads(retry.stdout)
    assert final["items"]["errored"] == 0 and final["items"]["completed"] == 4
    ids = [line["id"] for line in valid_lines(out / "items.jsonl")]
    assert len(ids) == 4 + report["items"]["errored"]  # appended, never rewritten


def test_sigint_exits_130_marks_interrupted_and_resume_completes(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 30)
    with JudgeServer(latency=0.15) as server:
        rubric = server_rubric(tmp_path / "r.yaml", server.api_base, concurrency=2)
        out = tmp_path / "exp"
        proc = start_cli("run", rubric, data, "--out", out)
        assert wait_for_lines(out / "items.jsonl", 2, proc, limit=60)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err.decode()
        assert f"autorubric resume {out}" in err.decode()
        assert manifest(out)["status"] == "interrupted"
        partial = len(valid_lines(out / "items.jsonl"))
        assert 2 <= partial < 30
        assert not (out / "report.json").exists()  # rendered on demand by `report` instead
        report = json.loads(cli("report", out, "--format", "json").stdout)
        assert report["status"] == "interrupted" and report["items"]["pending"] == 30 - partial

        resumed = cli("resume", out)
        assert resumed.exit_code == 0, resumed.stderr
    ids = [line["id"] for line in valid_lines(out / "items.jsonl")]
    assert sorted(ids) == sorted(set(ids)) and len(ids) == 30
    assert manifest(out)["status"] == "completed"


def test_faults_at_20_percent_complete_with_retries_counted(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 20)
    kinds = ("rate_limit", "server_error", "hang", "malformed")
    with JudgeServer(
        fault_rate=0.2, fault_kinds=kinds, fault_seed=11, retry_after=0.05, hang_s=5
    ) as server:
        rubric = server_rubric(tmp_path / "r.yaml", server.api_base, timeout=0.5, concurrency=8)
        out = tmp_path / "exp"
        result = cli("run", rubric, data, "--out", out, "--format", "json")
        faults = [r.fault for r in server.requests if r.fault]
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(faults) == set(kinds)
    assert report["items"] == {"total": 20, "completed": 20, "errored": 0, "pending": 0}
    assert report["retries"] == len(faults)
    assert report["judges"][0]["retries"] == len(faults)


def test_auth_failure_stops_the_run_exit_2_without_leaking_the_key(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 10)
    with JudgeServer(fault_rate=1.0, fault_kinds=("unauthorized",)) as server:
        rubric = server_rubric(tmp_path / "r.yaml", server.api_base, concurrency=1)
        out = tmp_path / "exp"
        result = cli("run", rubric, data, "--out", out)
        assert server.request_count <= 3  # stops instead of burning through every item
    assert result.exit_code == 2
    assert "j0" in result.stderr
    assert KEY_VALUE not in result.stderr + result.stdout
    for path in out.iterdir():
        assert KEY_VALUE not in path.read_text()
    assert manifest(out)["status"] == "failed"


def test_resume_refuses_a_changed_dataset(ungated: Path, tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(DEMO_DATA.read_text())
    out = tmp_path / "exp"
    assert cli("run", ungated, data, "--out", out, "--limit", "2").exit_code == 0
    with data.open("a") as handle:
        handle.write('{"id": "new", "submission": "more"}\n')
    result = cli("resume", out)
    assert result.exit_code == 2
    assert "dataset changed" in result.stderr and str(data) in result.stderr


def test_report_survives_a_torn_last_line_and_says_so(ungated: Path, tmp_path: Path) -> None:
    out = tmp_path / "exp"
    assert cli("run", ungated, DEMO_DATA, "--out", out, "--limit", "5").exit_code == 0
    with (out / "items.jsonl").open("ab") as handle:
        handle.write(b'{"id": "q006", "status": "ok", "crit')
    result = cli("report", out)
    assert result.exit_code == 0, result.stderr
    assert "items.jsonl:6: incomplete or unreadable record ignored" in result.stdout
    report = json.loads((out / "report.json").read_text())
    assert report["items"]["completed"] == 5
    assert len(report["warnings"]) == 1


@pytest.mark.parametrize("fmt", ["json", "markdown", "csv", "junit", "table"])
def test_report_formats_render_without_judge_calls(ungated: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / "exp"
    assert cli("run", ungated, DEMO_DATA, "--out", out, "--limit", "4").exit_code == 0
    result = cli("report", out, "--format", fmt)
    assert result.exit_code == 0, result.stderr
    if fmt == "json":
        assert json.loads(result.stdout)["items"]["completed"] == 4
    elif fmt == "csv":
        rows = result.stdout.strip().splitlines()
        assert len(rows) == 5 and rows[0].startswith("id,index,status,score")
    elif fmt == "junit":
        assert result.stdout.startswith("<?xml") and "<testsuite" in result.stdout
    elif fmt == "markdown":
        assert result.stdout.startswith("## autorubric") and "| energy_density |" in result.stdout
    else:
        assert "Criteria" in result.stdout and "Judges" in result.stdout


def test_what_if_rescores_stored_votes_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "exp"
    assert cli("run", DEMO_RUBRIC, DEMO_DATA, "--out", out).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    result = cli(
        "report", out, "--format", "json", "--aggregation", "any", "--cannot-assess", "zero"
    )
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["what_if"]["score"]["mean"] != report["score"]["mean"]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    bad = cli("report", out, "--aggregation", "mostly")
    assert bad.exit_code == 2 and "--aggregation" in bad.stderr


def test_github_step_summary_gets_the_markdown(ungated: Path, tmp_path: Path) -> None:
    out = tmp_path / "exp"
    assert cli("run", ungated, DEMO_DATA, "--out", out, "--limit", "3").exit_code == 0
    summary = tmp_path / "summary.md"
    done = cli("report", out, "--format", "json", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert done.exit_code == 0
    assert summary.read_text().startswith("## autorubric")


def test_help_and_report_never_import_litellm(ungated: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    out = tmp_path / "exp"
    assert cli("run", ungated, DEMO_DATA, "--out", out, "--limit", "2").exit_code == 0
    for args in (["--help"], ["report", str(out), "--format", "json"]):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "autorubric_cli", *args],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        imported = [line.split("|")[-1].strip() for line in done.stderr.splitlines()]
        assert "autorubric_cli.cli.app" in imported  # the import log is really being read
        assert not any(name.split(".")[0] == "litellm" for name in imported), args
