"""Papercuts: each a small thing a first-hour user trips over."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from runner_support import (
    DEMO_DATA,
    copy_experiment,
    demo_run,
    edit_manifest,
    invoke,
    mark_errored,
    ungated_demo,
)

CRITERION = "criteria:\n  - name: a\n    requirement: States the figure\n"


def test_a_quoted_number_is_refused_with_file_line_and_key(tmp_path: Path) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text(CRITERION + '    weight: "5"\n')
    code, stdout, stderr = invoke("check", rubric)
    assert code == 2 and stdout == ""
    assert stderr.startswith(f"autorubric: error: {rubric}:4: criteria[0].weight: must be a number")


def test_scale_type_binary_names_a_criterion_without_options(tmp_path: Path) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text(CRITERION + "    scale_type: binary\n")
    code, stdout, stderr = invoke("check", rubric)
    assert code == 0, stderr
    assert re.search(r"│ a\s+│ binary", stdout), stdout
    rubric.write_text(
        CRITERION
        + "    scale_type: binary\n    options: [{label: x, value: 0}, {label: y, value: 1}]\n"
    )
    code, _, stderr = invoke("check", rubric)
    assert code == 2
    assert f"{rubric}:4: criteria[0].scale_type: scale_type `binary` is for a criterion" in stderr
    assert "with options use ordinal or nominal" in stderr


def test_debug_keeps_exit_2_for_bad_input_and_adds_the_traceback(tmp_path: Path) -> None:
    code, _, stderr = invoke("--debug", "check", tmp_path / "nope.yaml")
    assert code == 2
    assert "Traceback" in stderr
    assert stderr.strip().splitlines()[-1].startswith("autorubric: error: ")
    assert "rubric file not found" in stderr.strip().splitlines()[-1]


def test_report_to_another_html_file_leaves_report_json_alone(tmp_path: Path) -> None:
    out = demo_run(tmp_path)
    (out / "report.json").unlink()
    page = tmp_path / "elsewhere.html"
    code, stdout, stderr = invoke("report", out, "--format", "html", "-o", page)
    assert code == 0, stderr
    assert stdout.strip() == str(page) and page.is_file()
    assert not (out / "report.json").exists()
    code, _, _ = invoke("report", out, "--format", "json")
    assert code == 0 and (out / "report.json").is_file()  # its own report still writes it


def test_experiment_directory_is_named_after_the_rubric_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    named = ungated_demo(tmp_path)  # `name: battery-chemistry-demo`
    unnamed = tmp_path / "my-rubric.yaml"
    unnamed.write_text(named.read_text().replace("name: battery-chemistry-demo\n", ""))
    for rubric in (named, unnamed):
        code, _, stderr = invoke("run", rubric, DEMO_DATA, "--limit", "1")
        assert code == 0, stderr
    names = sorted(p.name for p in (tmp_path / "experiments").iterdir())
    assert len(names) == 2
    assert re.fullmatch(r"battery-chemistry-demo-\d{8}T\d{6}Z", names[0]), names
    assert re.fullmatch(r"my-rubric-\d{8}T\d{6}Z", names[1]), names


def test_simulated_results_are_not_called_an_offline_demo(tmp_path: Path) -> None:
    out = demo_run(tmp_path)
    for fmt in ("table", "markdown"):
        code, stdout, _ = invoke("report", out, "--format", fmt)
        assert code == 0
        assert "simulated" in stdout.lower() and "offline demo" not in stdout
    assert "offline demo" not in (out / "report.html").read_text()


def closed_stdout_run(*args: str | Path) -> subprocess.CompletedProcess[bytes]:
    """Run the CLI with a stdout pipe whose reader is already gone (as `| head` leaves it)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "autorubric_cli", *map(str, args)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    finally:
        os.close(write_end)


def test_a_closed_stdout_keeps_the_commands_exit_code_and_says_nothing(tmp_path: Path) -> None:
    out = demo_run(tmp_path)
    passed = closed_stdout_run("report", out)
    assert (passed.returncode, passed.stderr) == (0, b"")
    failed = closed_stdout_run("report", out, "--fail-under", "0.99")
    assert (failed.returncode, failed.stderr) == (1, b"")  # the gate's verdict, not a crash


def test_merge_names_the_missing_shard_without_a_placeholder(tmp_path: Path) -> None:
    shard = demo_run(tmp_path, "s1", "--shard", "1/2", "--fail-under", "0")
    code, stdout, stderr = invoke("merge", tmp_path / "merged", shard)
    assert code == 2 and stdout == ""
    assert stderr.startswith("autorubric: error: missing shard(s) 2/2; pass --allow-partial")
    assert not (tmp_path / "merged").exists()


def test_a_shard_run_says_its_gate_covers_one_shard(tmp_path: Path) -> None:
    code, stdout, stderr = invoke(
        "run", ungated_demo(tmp_path), DEMO_DATA, "--out", tmp_path / "s1", "--shard", "1/2",
        "--limit", "6", "--fail-under", "0",
    )  # fmt: skip
    assert code == 0, stderr
    assert "Gate: PASSED (shard 1/2 only" in " ".join(stdout.split())
    whole = demo_run(tmp_path, "whole", "--fail-under", "0")
    code, stdout, _ = invoke("report", whole, "--fail-under", "0")
    assert "Gate: PASSED" in stdout and "shard" not in stdout


def test_a_failed_runs_report_shows_its_cause_and_the_resume_command(tmp_path: Path) -> None:
    out = demo_run(tmp_path)
    cause = "judge 'careful': connection refused to http://127.0.0.1:9/v1"
    edit_manifest(out, status="failed", error=cause)
    (out / "items.jsonl").write_text("")
    code, stdout, stderr = invoke("report", out)
    flat = " ".join(stdout.split())
    assert f"failed: {cause}" in flat
    assert f"autorubric resume {out}" in flat
    code, _, stderr = invoke("report", out, "--format", "html")
    assert code == 0, stderr
    page = (out / "report.html").read_text()
    banner = re.search(r'<p class="banner" id="status-cause">(.*?)</p>', page, re.S)
    assert banner is not None
    assert "connection refused to http://127.0.0.1:9/v1" in banner.group(1)
    assert f"autorubric resume {out}" in banner.group(1)
    # nothing was recorded, so nothing was paid: the header and the judges table agree
    header_cost = re.search(r"<dt>cost</dt><dd>(\S+) paid", page)
    assert header_cost is not None and header_cost.group(1) == "$0.0000"
    report = json.loads((out / "report.json").read_text())
    assert report["cost"] == 0.0 and {j["cost"] for j in report["judges"]} == {0.0}


def test_compare_exit_3_only_for_errors_of_new(tmp_path: Path) -> None:
    clean = demo_run(tmp_path, "clean")
    broken = copy_experiment(clean, tmp_path / "broken")
    mark_errored(broken, 2)
    code, stdout, stderr = invoke("compare", broken, clean, "--format", "json")
    assert code == 0, stderr
    result = json.loads(stdout)
    assert result["errored"] == {"base": 2, "new": 0}
    assert any("BASE has 2 errored items" in w for w in result["warnings"])
    code, stdout, _ = invoke("compare", clean, broken, "--format", "json")
    assert code == 3
    assert json.loads(stdout)["errored"] == {"base": 0, "new": 2}
