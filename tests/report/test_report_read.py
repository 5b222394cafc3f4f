"""The report reads items.jsonl exactly as `experiment.store` defines it (newest complete line of
each id wins; torn, unreadable, invalid and misfit lines are warnings), although its scan reads
most ids from a line's first bytes and its workers parse each line once (report/scan.py)."""

from __future__ import annotations

import json
import math
from array import array
from pathlib import Path
from typing import Any

import pytest

from autorubric_cli.core.records import ItemRecord
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.experiment.record_fit import RecordFit
from autorubric_cli.experiment.store import ReadIssues, iter_latest_records
from autorubric_cli.report import parallel, scan
from autorubric_cli.report.fold import ReportFold
from tests.report.test_report_parallel import load_bench


def experiment_lines(directory: Path, n: int) -> list[bytes]:
    load_bench().write_experiment(directory, n)
    return (directory / "items.jsonl").read_bytes().splitlines(keepends=True)


def fold_state(fold: ReportFold) -> str:
    """Every figure of the fold, comparable (NaN as text)."""
    fields: dict[str, Any] = {}
    for name, value in vars(fold).items():
        if name in ("rules", "what_if", "overlay", "_tallies"):
            continue
        if name == "criteria":
            value = [{k: v for k, v in vars(t).items() if k != "criterion"} for t in value]
        if name == "judges":
            value = {k: vars(v) for k, v in value.items()}
        fields[name] = value
    return repr(fields)


def reference(directory: Path) -> tuple[str, list[int]]:
    """The fold over `experiment.store`'s newest records, read one at a time, and its warnings."""
    experiment = open_experiment(directory)
    rules = experiment.rules
    judge_ids = [j.judge_id for j in experiment.rubric.grader.judges]
    fold = ReportFold(rules, judge_ids)
    issues = ReadIssues()
    for record in iter_latest_records(directory / "items.jsonl", issues, rules.criteria):
        fold.add(record)
    return fold_state(fold), issues.bad_lines


def folded(directory: Path) -> tuple[str, list[int]]:
    experiment = open_experiment(directory)
    judge_ids = [j.judge_id for j in experiment.rubric.grader.judges]
    issues = ReadIssues()
    fold = parallel.fold_experiment(
        directory / "items.jsonl", experiment.rules, judge_ids, None, issues
    )
    return fold_state(fold), issues.bad_lines


def edited(line: bytes, **changes: Any) -> bytes:
    record = json.loads(line)
    record.update(changes)
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def torn(line: bytes) -> bytes:
    return line[: len(line) // 2] + b"\n"  # its id still readable from its first bytes


def cases(lines: list[bytes]) -> dict[str, tuple[list[bytes], bool]]:
    """name -> (the file's lines, whether the scan's shortcut must be given up)."""
    a, b, c = lines[1], lines[2], lines[3]
    nan = a.replace(b'"score":', b'"score":NaN,"x":', 1)
    twice = a[:-2] + b',"id":"other"}\n'  # orjson keeps the last of two "id" keys
    return {
        "clean": (lines, False),
        "rewritten id, newest wins": ([*lines, edited(a, score=0.5)], False),
        "torn line of a new id": ([*lines, torn(edited(a, id="new"))], False),
        "torn newest line: the older one wins": ([*lines, torn(a)], True),
        "NaN in the newest line": ([*lines, nan], True),
        "two id keys": ([*lines, twice], True),
        "escaped id": ([*lines, edited(b, id='q"uote')], False),
        "id not first": ([*lines, json.dumps({"status": "ok", **json.loads(c)}).encode()], False),
        "int id shadows a string id": (
            [edited(a, id="5"), *lines[2:], edited(a, id=5)],
            False,
        ),
        "newest fails validation": ([*lines, edited(b, status="weird")], False),
        "newest does not fit the rubric": ([*lines, edited(c, criteria=[])], False),
        "blank, whitespace and non-object lines": ([*lines, b"\n", b"  \t\n", b"[1, 2]\n"], False),
        "no newline at the end": ([*lines, edited(b, score=0.25).rstrip(b"\n")], False),
    }


@pytest.mark.parametrize("workers", [1, 3])
def test_fold_equals_the_store_readers_fold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    directory = tmp_path / "exp"
    lines = experiment_lines(directory, 12)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_RECORDS", 1 if workers > 1 else 10**9)
    monkeypatch.setattr(parallel.os, "cpu_count", lambda: workers)
    exact_scans: list[bool] = []
    index_lines = scan.index_lines

    def counted(path: Path, *, fast: bool = True) -> scan.LineIndex:
        exact_scans.append(not fast)
        return index_lines(path, fast=fast)

    monkeypatch.setattr(parallel, "index_lines", counted)
    for name, (content, exact) in cases(lines).items():
        (directory / "items.jsonl").write_bytes(b"".join(content))
        exact_scans.clear()
        assert folded(directory) == reference(directory), name
        assert exact_scans == ([False, True] if exact else [False]), name


def test_the_cases_are_what_they_claim(tmp_path: Path) -> None:
    directory = tmp_path / "exp"
    lines = experiment_lines(directory, 12)
    bad = {}
    for name, (content, _) in cases(lines).items():
        (directory / "items.jsonl").write_bytes(b"".join(content))
        bad[name] = reference(directory)[1]
    assert bad["clean"] == bad["rewritten id, newest wins"] == bad["escaped id"] == []
    assert bad["torn newest line: the older one wins"] == [13]
    assert bad["torn line of a new id"] == [13]
    assert bad["NaN in the newest line"] == [13]
    assert bad["newest fails validation"] == [13]
    assert bad["newest does not fit the rubric"] == [13]
    assert bad["blank, whitespace and non-object lines"] == [15]
    assert bad["int id shadows a string id"] == [12]


def test_prefix_id_reads_only_the_writers_form() -> None:
    assert scan.prefix_id(b'{"id":"i7","index":7}\n') == "i7"
    assert scan.prefix_id('{"id":"é","index":7}\n'.encode()) == "é"
    assert scan.prefix_id(b'{"id":"a\\"b","index":7}\n') is None  # an escape: parsed instead
    assert scan.prefix_id(b'{"id": "i7"}\n') is None
    assert scan.prefix_id(b'{"index":7,"id":"i7"}\n') is None
    assert scan.prefix_id(b'{"id":"i7') is None
    assert scan.prefix_id(b'{"id":"\xff"}\n') is None


def test_line_ranges_cover_every_line_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    directory = tmp_path / "exp"
    lines = experiment_lines(directory, 10)
    (directory / "items.jsonl").write_bytes(b"\n" + b"".join(lines) + lines[0] + b"\n")
    monkeypatch.setattr(parallel, "PARALLEL_MIN_RECORDS", 1)
    monkeypatch.setattr(parallel.os, "cpu_count", lambda: 3)
    index = scan.index_lines(directory / "items.jsonl")
    ranges = parallel.line_ranges(index)
    assert ranges == [(1, 6), (7, 10), (11, 13)]
    assert index.kept() == list(range(3, 13))
    assert list(index.offsets[:2]) == [0, 1]
    assert index.offsets[-1] == (directory / "items.jsonl").stat().st_size
    assert isinstance(index.offsets, array)


def test_fit_reasons(tmp_path: Path) -> None:
    """The rubric checks the fold relies on (experiment/record_fit.py)."""
    directory = tmp_path / "exp"
    lines = experiment_lines(directory, 1)
    experiment = open_experiment(directory)
    fit = RecordFit.of(experiment.rules.criteria)
    record = json.loads(lines[0])
    from_line = ItemRecord.model_validate

    def reason(**changes: Any) -> str | None:
        return fit.misfit(from_line({**record, **changes}))

    assert reason() is None
    assert reason(criteria=record["criteria"][::-1]) == "its criteria differ from the rubric's"
    tone = [dict(c) for c in record["criteria"]]
    tone[4] = {**tone[4], "option": {"index": 3, "label": "x", "value": 0.0, "na": False}}
    assert reason(criteria=tone) == "criterion 'tone': option index out of range"
    for key, bad in (("option_index", 3), ("shuffle_order", [0, 1, 3]), ("option_set", [-1])):
        votes = [dict(v) for v in record["criteria"][4]["votes"]]
        votes[1] = {**votes[1], key: bad}
        criteria = [dict(c) for c in record["criteria"]]
        criteria[4] = {**criteria[4], "votes": votes}
        assert reason(criteria=criteria) == "criterion 'tone': vote option index out of range"
    wrong = "a recorded label is not one of the criterion's"
    assert reason(ground_truth={"accurate": "Good"}) == f"criterion 'accurate': {wrong}"
    assert reason(human_ratings={"clarity": ["Good", ["Fair", "Poor"]]}) is None
    mixed = {"clarity": ["Good", ["Fair", "MET"]]}
    assert reason(human_ratings=mixed) == f"criterion 'clarity': {wrong}"
    assert math.isfinite(record["score"])
