"""A record without its submission names the fix: the keys it has and `--field`; a mapping
typo names the mapped key; `"submission": null` is said to be null, not missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.runner_support import invoke

RUBRIC = "criteria:\n  - name: acc\n    requirement: States the figure\n"


@pytest.fixture
def rubric(tmp_path: Path) -> Path:
    path = tmp_path / "r.yaml"
    path.write_text(RUBRIC)
    return path


def error(*args: str | Path) -> str:
    code, stdout, stderr = invoke("check", *args)
    assert code == 2 and stdout == ""
    (line,) = stderr.splitlines()
    return line


def test_a_csv_without_a_submission_column_lists_its_columns_and_names_field(
    rubric: Path, tmp_path: Path
) -> None:
    data = tmp_path / "d.csv"
    data.write_text("id,agent_reply,ticket\nt1,We refunded you.,123\n")
    line = error(rubric, data)
    assert line.startswith(f"autorubric: error: {data}:2: submission: missing required key")
    assert "the record's keys: id, agent_reply, ticket" in line
    assert "--field submission=KEY" in line
    assert invoke("check", rubric, data, "--field", "submission=agent_reply")[0] == 0


def test_a_mapping_typo_names_the_mapped_key(rubric: Path, tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "t1", "agent_reply": "We refunded you."}\n')
    line = error(rubric, data, "--field", "submission=agent_replyy")
    assert "submission=agent_replyy names 'agent_replyy', which this record does not have" in line
    assert "did you mean 'agent_reply'?" in line
    assert "missing required key" not in line


def test_a_null_submission_is_null_not_missing(rubric: Path, tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "t1", "submission": null}\n')
    line = error(rubric, data)
    assert "`submission` is null; it must be a string, {thinking, output} or a conversation" in line
    assert "missing" not in line


def test_a_ground_truth_key_naming_no_criterion_says_did_you_mean(
    rubric: Path, tmp_path: Path
) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "t1", "submission": "x", "ground_truth": {"ac": "MET"}}\n')
    line = error(rubric, data)
    assert line.endswith("ground_truth.ac: unknown criterion `ac`; did you mean `acc`?")
