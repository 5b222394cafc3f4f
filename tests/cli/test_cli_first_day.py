"""A newcomer's papercuts: usage errors in one line, help that says the fallback, messages that
fit the command that printed them, bounds no score can reach."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.runner_support import DEMO_DATA, demo_run, invoke, ungated_demo

JUDGED = "criteria:\n  - name: acc\n    requirement: States the figure\n"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["compare", "a", "b", "--format", "csv"],
            "--format: must be one of: table, json, markdown, junit, html "
            "(see autorubric compare --help)",
        ),
        (["run", "r", "d", "--limit", "0"], "--limit: must be a whole number, at least 1"),
        (["run", "r", "d", "--concurrency", "x"], "--concurrency: must be a whole number"),
        (["report", "x", "--fail-under", "abc"], "--fail-under: must be a number"),
        (["run", "r.yaml", "d.jsonl", "--zzz"], "No such option: --zzz"),
        (["run", "r.yaml"], "Missing argument 'DATASET' (see autorubric run --help)"),
        (["nope"], "No such command 'nope' (see autorubric --help)"),
    ],
)
def test_a_usage_error_is_one_line_naming_the_flag(args: list[str], expected: str) -> None:
    code, stdout, stderr = invoke(*args)
    assert code == 2
    assert stdout == ""
    (line,) = stderr.splitlines()
    assert line.startswith("autorubric: error: ") and expected in line, line
    assert "Input should" not in line and "Value error" not in line


def test_check_usage_shows_one_pair_of_brackets_around_the_dataset() -> None:
    code, stdout, _ = invoke("check", "--help")
    assert code == 0
    assert "RUBRIC [DATASET]" in stdout and "[[DATASET]]" not in stdout


@pytest.mark.parametrize("command", [["run"], ["resume"], ["cache", "info"]])
def test_cache_dir_help_names_the_user_cache_directory(command: list[str]) -> None:
    code, stdout, _ = invoke(*command, "--help")
    assert code == 0
    text = " ".join(stdout.replace("│", " ").split())
    assert "$AUTORUBRIC_CACHE_DIR, else the user cache directory" in text


def test_a_missing_key_variable_on_run_does_not_point_to_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    rubric = tmp_path / "r.yaml"
    rubric.write_text(JUDGED)
    code, _, stderr = invoke("run", rubric, DEMO_DATA, "--judge", "openai/gpt-4.1-mini")
    assert code == 2
    assert "needs the environment variable OPENAI_API_KEY" in stderr
    assert "--no-env" not in stderr and "check" not in stderr
    code, _, stderr = invoke("check", rubric, "--judge", "openai/gpt-4.1-mini")
    assert code == 2
    assert stderr.rstrip().endswith("or pass --no-env to skip the environment checks")


@pytest.mark.parametrize("command", ["report", "resume"])
def test_fail_under_above_one_is_refused_on_a_normalized_experiment(
    tmp_path: Path, command: str
) -> None:
    directory = demo_run(tmp_path, limit=3)
    before = (directory / "items.jsonl").read_text()
    code, stdout, stderr = invoke(command, directory, "--fail-under", "1.5")
    assert code == 2, stderr
    assert stderr.startswith("autorubric: error: --fail-under: min 1.5 on score.mean can never")
    assert stdout == ""
    assert (directory / "items.jsonl").read_text() == before
    assert invoke(command, directory, "--fail-under", "1")[0] == 1  # reachable: a real verdict


def test_fail_under_above_one_is_a_gate_when_scores_are_raw(tmp_path: Path) -> None:
    rubric = ungated_demo(tmp_path)
    raw = tmp_path / "raw.yaml"
    raw.write_text(rubric.read_text().replace("  seed: 42\n", "  seed: 42\n  normalize: false\n"))
    code, _, stderr = invoke(
        "run", raw, DEMO_DATA, "--out", tmp_path / "raw", "--limit", "3", "--fail-under", "1.5"
    )
    assert code in (0, 1), stderr  # a verdict on the raw score, not an input error
