"""Valid dataset files (docs/reference/dataset-files.md): labels, submissions, ids, line numbers,
streaming."""

from __future__ import annotations

import inspect
from pathlib import Path

import orjson
import pytest

from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.loading.dataset import iter_items, summarize_dataset
from autorubric_cli.loading.rubric_loader import parse_rubric

RUBRIC = """
criteria:
  - name: acc
    requirement: a
  - name: sat
    requirement: b
    options:
      - {label: Very Bad, value: 0}
      - {label: Good, value: 1}
      - {label: NA - not asked, na: true}
  - name: wrong
    requirement: c
    weight: -5
"""


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return parse_rubric(RUBRIC, "rubric.yaml")


def write_jsonl(path: Path, *rows: object | str) -> Path:
    lines = [r if isinstance(r, str) else orjson.dumps(r).decode() for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_full_item(tmp_path: Path, rubric: Rubric) -> None:
    path = write_jsonl(
        tmp_path / "d.jsonl",
        {
            "id": "q1",
            "submission": "NMC reaches 250 Wh/kg",
            "query": "Compare NMC and LFP.",
            "reference_submission": "exemplar",
            "ground_truth": {"acc": "MET", "wrong": "UNMET", "sat": "Good"},
            "human_ratings": {"sat": ["Good", "Very Bad", ["Good", "Very Bad"]]},
            "metadata": {"model": "target-v2", "n": [1, 2]},
        },
    )
    (item,) = iter_items(path, rubric)
    assert (item.id, item.index, item.line) == ("q1", 0, 1)
    assert (item.submission.output, item.submission.thinking) == ("NMC reaches 250 Wh/kg", None)
    assert (item.query, item.reference_submission) == ("Compare NMC and LFP.", "exemplar")
    assert item.ground_truth == {"acc": "MET", "wrong": "UNMET", "sat": "Good"}
    assert item.human_ratings == {"sat": ["Good", "Very Bad", ["Good", "Very Bad"]]}
    assert item.metadata == {"model": "target-v2", "n": [1, 2]}


def test_minimal_item_defaults(tmp_path: Path, rubric: Rubric) -> None:
    (item,) = iter_items(write_jsonl(tmp_path / "d.jsonl", {"submission": "x"}), rubric)
    assert (item.id, item.query, item.reference_submission) == ("1", None, None)
    assert (item.ground_truth, item.human_ratings, item.metadata) == ({}, {}, {})


def test_labels_case_insensitive_trimmed_in_rubric_spelling(tmp_path: Path, rubric: Rubric) -> None:
    row = {
        "submission": "x",
        "ground_truth": {"acc": "  met ", "sat": "very bad", "wrong": "cannot_assess"},
        "human_ratings": {
            "sat": ["GOOD", ["  good", "VERY BAD "], "na - NOT asked"],
            "acc": ["unmet", ["Met"]],
        },
    }
    (item,) = iter_items(write_jsonl(tmp_path / "d.jsonl", row), rubric)
    assert item.ground_truth == {"acc": "MET", "sat": "Very Bad", "wrong": "CANNOT_ASSESS"}
    assert item.human_ratings == {
        "sat": ["Good", ["Good", "Very Bad"], "NA - not asked"],
        "acc": ["UNMET", ["MET"]],
    }


def test_submission_with_thinking_and_output(tmp_path: Path, rubric: Rubric) -> None:
    path = write_jsonl(
        tmp_path / "d.jsonl",
        {"submission": {"thinking": "let me think", "output": "answer"}},
        {"submission": {"output": "only output"}},
        {"submission": {"output": "", "thinking": None}},
    )
    first, second, third = iter_items(path, rubric)
    assert (first.submission.thinking, first.submission.output) == ("let me think", "answer")
    assert (second.submission.thinking, second.submission.output) == (None, "only output")
    assert (third.submission.thinking, third.submission.output) == (None, "")


def test_ground_truth_list_in_criterion_order(tmp_path: Path, rubric: Rubric) -> None:
    path = write_jsonl(
        tmp_path / "d.jsonl",
        {"submission": "x", "ground_truth": ["met", "GOOD", "unmet"]},
        {"submission": "y", "ground_truth": ["UNMET", None, "MET"]},
    )
    first, second = iter_items(path, rubric)
    assert first.ground_truth == {"acc": "MET", "sat": "Good", "wrong": "UNMET"}
    assert second.ground_truth == {"acc": "UNMET", "wrong": "MET"}


def test_blank_lines_skipped_but_counted(tmp_path: Path, rubric: Rubric) -> None:
    path = tmp_path / "d.jsonl"
    path.write_bytes(
        b'\n\n{"submission": "a"}\n   \n{"submission": "b"}\r\n\t\n{"id": 9, "submission": "c"}'
    )
    items = list(iter_items(path, rubric))
    assert [(i.id, i.index, i.line) for i in items] == [("3", 0, 3), ("5", 1, 5), ("9", 2, 7)]


def test_explicit_ids_are_strings(tmp_path: Path, rubric: Rubric) -> None:
    path = write_jsonl(
        tmp_path / "d.jsonl",
        {"id": 7, "submission": "a"},
        {"id": "abc", "submission": "b"},
        {"submission": "c"},
    )
    assert [i.id for i in iter_items(path, rubric)] == ["7", "abc", "3"]


def test_iter_items_streams(tmp_path: Path, rubric: Rubric) -> None:
    path = write_jsonl(tmp_path / "d.jsonl", {"id": "first", "submission": "a"}, "{broken")
    items = iter_items(path, rubric)
    assert inspect.isgenerator(items)
    assert next(items).id == "first"
    with pytest.raises(InputError) as info:
        next(items)
    assert info.value.line == 2


def test_long_line_under_the_limit_is_accepted(tmp_path: Path, rubric: Rubric) -> None:
    text = "word " * 400_000  # 2 MB
    (item,) = iter_items(write_jsonl(tmp_path / "d.jsonl", {"submission": text}), rubric)
    assert item.submission.output == text


def test_unicode_content(tmp_path: Path, rubric: Rubric) -> None:
    (item,) = iter_items(write_jsonl(tmp_path / "d.jsonl", {"submission": "café ⚡ 電池"}), rubric)
    assert item.submission.output == "café ⚡ 電池"


def test_summarize_dataset(tmp_path: Path, rubric: Rubric) -> None:
    path = write_jsonl(
        tmp_path / "d.jsonl",
        {"submission": "a", "ground_truth": {"acc": "MET"}},
        "",
        {"submission": "b", "ground_truth": {"acc": "UNMET", "sat": "Good"}},
        {"submission": "c", "human_ratings": {"sat": ["Good"]}},
        {"submission": "d"},
    )
    summary = summarize_dataset(path, rubric)
    assert summary.items == 4
    assert summary.with_ground_truth == 2
    assert summary.with_human_ratings == 1
    assert summary.labels == {"acc": 2, "sat": 1}
