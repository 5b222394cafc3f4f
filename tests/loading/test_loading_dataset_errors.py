"""Bad dataset files: each is an InputError naming file, line and key
(docs/reference/dataset-files.md, docs/reference/exit-codes.md)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.loading.dataset import MAX_LINE_BYTES, iter_items, summarize_dataset
from autorubric_cli.loading.rubric_loader import parse_rubric

RUBRIC = """
criteria:
  - name: acc
    requirement: a
  - name: sat
    requirement: b
    options:
      - {label: Bad, value: 0}
      - {label: Good, value: 1}
      - {label: NA - not asked, na: true}
"""

OK = b'{"submission": "fine"}\n'

# (id, file bytes, expected line, expected key); "" = the error is not about one key
BAD_DATASETS: list[tuple[str, bytes, int, str]] = [
    ("bad-json", OK + b'{"submission": \n', 2, ""),
    ("trailing-comma", OK + OK + b'{"submission": "a",}\n', 3, ""),
    ("non-object-list", OK + b'\n["a"]\n', 3, ""),
    ("non-object-string", b'"just text"\n', 1, ""),
    ("nan-literal", b'{"submission": "a", "metadata": {"x": NaN}}\n', 1, ""),
    ("duplicate-id", b'{"id": "x", "submission": "a"}\n{"id": "x", "submission": "b"}\n', 2, "id"),
    ("duplicate-default-id", b'{"id": "2", "submission": "a"}\n{"submission": "b"}\n', 2, "id"),
    (
        "duplicate-int-id",
        b'{"id": 7, "submission": "a"}\n{"id": "7", "submission": "b"}\n',
        2,
        "id",
    ),
    ("id-bool", b'{"id": true, "submission": "a"}\n', 1, "id"),
    ("id-empty", b'{"id": "  ", "submission": "a"}\n', 1, "id"),
    ("missing-submission", OK + b'\n\n{"id": "q"}\n', 4, "submission"),
    ("submission-null", b'{"submission": null}\n', 1, "submission"),
    ("submission-int", b'{"submission": 5}\n', 1, "submission"),
    ("submission-list", b'{"submission": ["a"]}\n', 1, "submission[0]"),
    ("submission-no-output", b'{"submission": {"thinking": "t"}}\n', 1, "submission.output"),
    (
        "submission-thinking-int",
        b'{"submission": {"output": "o", "thinking": 1}}\n',
        1,
        "submission.thinking",
    ),
    (
        "submission-extra-key",
        b'{"submission": {"output": "o", "answer": "x"}}\n',
        1,
        "submission.answer",
    ),
    ("metadata-not-object", b'{"submission": "a", "metadata": [1]}\n', 1, "metadata"),
    ("query-not-string", b'{"submission": "a", "query": 3}\n', 1, "query"),
    (
        "reference-not-string",
        b'{"submission": "a", "reference_submission": {}}\n',
        1,
        "reference_submission",
    ),
    (
        "gt-label-not-an-option",
        b'{"submission": "a", "ground_truth": {"sat": "Meh"}}\n',
        1,
        "ground_truth.sat",
    ),
    (
        "gt-option-label-on-binary",
        b'{"submission": "a", "ground_truth": {"acc": "Good"}}\n',
        1,
        "ground_truth.acc",
    ),
    (
        "gt-binary-yes",
        b'{"submission": "a", "ground_truth": {"acc": "yes"}}\n',
        1,
        "ground_truth.acc",
    ),
    (
        "gt-label-not-string",
        b'{"submission": "a", "ground_truth": {"acc": 1}}\n',
        1,
        "ground_truth.acc",
    ),
    (
        "gt-unknown-criterion",
        b'{"submission": "a", "ground_truth": {"nope": "MET"}}\n',
        1,
        "ground_truth.nope",
    ),
    ("gt-list-too-short", b'{"submission": "a", "ground_truth": ["MET"]}\n', 1, "ground_truth"),
    (
        "gt-list-too-long",
        b'{"submission": "a", "ground_truth": ["MET", "Bad", "MET"]}\n',
        1,
        "ground_truth",
    ),
    (
        "gt-list-bad-label",
        b'{"submission": "a", "ground_truth": ["Bad", "MET"]}\n',
        1,
        "ground_truth.acc",
    ),
    ("gt-string", b'{"submission": "a", "ground_truth": "MET"}\n', 1, "ground_truth"),
    (
        "hr-bad-label",
        b'{"submission": "a", "human_ratings": {"sat": ["Good", "Meh"]}}\n',
        1,
        "human_ratings.sat",
    ),
    (
        "hr-bad-label-in-set",
        b'{"submission": "a", "human_ratings": {"sat": [["Bad", "Meh"]]}}\n',
        1,
        "human_ratings.sat",
    ),
    (
        "hr-empty-set",
        b'{"submission": "a", "human_ratings": {"sat": [[]]}}\n',
        1,
        "human_ratings.sat",
    ),
    (
        "hr-not-a-list",
        b'{"submission": "a", "human_ratings": {"sat": "Good"}}\n',
        1,
        "human_ratings.sat",
    ),
    (
        "hr-unknown-criterion",
        b'{"submission": "a", "human_ratings": {"zzz": ["MET"]}}\n',
        1,
        "human_ratings.zzz",
    ),
    ("hr-not-an-object", b'{"submission": "a", "human_ratings": ["MET"]}\n', 1, "human_ratings"),
    ("empty-file", b"", 1, ""),
    ("blank-lines-only", b"\n   \n\t\n\r\n", 1, ""),
    ("binary-nul", OK + b'{"submission": "\x00"}\n', 2, ""),
    ("binary-garbage", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 1, ""),
    ("not-utf8", OK + b"\n" + b'{"submission": "caf\xe9"}\n', 3, ""),
]

LOADERS: dict[str, Callable[[Path, Rubric], Any]] = {
    "iter_items": lambda path, rubric: list(iter_items(path, rubric)),
    "summarize_dataset": summarize_dataset,
}


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return parse_rubric(RUBRIC, "rubric.yaml")


def assert_located(err: InputError, path: Path, line: int, key: str) -> None:
    text = err.one_line()
    assert "\n" not in text
    assert err.path == str(path)
    assert (err.line, err.key) == (line, key), text
    prefix = f"{path}:{line}: " + (f"{key}: " if key else "")
    assert text.startswith(prefix), text
    assert text[len(prefix) :].strip(), "the message itself is missing"


@pytest.mark.parametrize("loader", list(LOADERS))
@pytest.mark.parametrize(
    ("content", "line", "key"),
    [pytest.param(c, n, k, id=i) for i, c, n, k in BAD_DATASETS],
)
def test_bad_dataset(
    tmp_path: Path, rubric: Rubric, loader: str, content: bytes, line: int, key: str
) -> None:
    path = tmp_path / "data.jsonl"
    path.write_bytes(content)
    with pytest.raises(InputError) as info:
        LOADERS[loader](path, rubric)
    assert_located(info.value, path, line, key)


def test_bad_dataset_table_is_large_and_distinct() -> None:
    assert len(BAD_DATASETS) >= 25
    assert len({c for _, c, _, _ in BAD_DATASETS}) == len(BAD_DATASETS)


def test_missing_dataset_names_the_file(tmp_path: Path, rubric: Rubric) -> None:
    path = tmp_path / "nope.jsonl"
    with pytest.raises(InputError) as info:
        list(iter_items(path, rubric))
    assert info.value.path == str(path)
    assert "\n" not in info.value.one_line()


def write_long_line(path: Path, megabytes: int) -> None:
    chunk = b"x" * (1024 * 1024)
    with path.open("wb") as handle:
        handle.write(OK)
        handle.write(b'{"submission": "')
        for _ in range(megabytes):
            handle.write(chunk)
        handle.write(b'"}\n')
        handle.write(OK)


def test_50mb_line_rejected_by_line_limit_without_reading_it_whole(
    tmp_path: Path, rubric: Rubric
) -> None:
    path = tmp_path / "huge.jsonl"
    write_long_line(path, 50)
    items = iter_items(path, rubric)
    assert next(items).line == 1
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as info:
            next(items)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert_located(info.value, path, 2, "")
    assert "long" in info.value.one_line()
    assert len(info.value.one_line()) < 500
    # the 50 MiB line was never held in memory at once
    assert peak < 45 * 1024 * 1024, peak
    assert MAX_LINE_BYTES < 50 * 1024 * 1024


def test_50mb_line_rejected_by_summarize_dataset(tmp_path: Path, rubric: Rubric) -> None:
    path = tmp_path / "huge.jsonl"
    write_long_line(path, 50)
    with pytest.raises(InputError) as info:
        summarize_dataset(path, rubric)
    assert_located(info.value, path, 2, "")
