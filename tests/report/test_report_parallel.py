"""The report is identical whether items.jsonl is folded in one process or in chunks."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType

import pytest

from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.report import parallel
from autorubric_cli.report.build import build_report


def load_bench() -> ModuleType:
    """bench/report_scale.py, whose synthetic records the report tests share."""
    return importlib.import_module("bench.report_scale")


def test_parallel_fold_equals_serial_fold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    directory = tmp_path / "exp"
    load_bench().write_experiment(directory, 301)
    items = directory / "items.jsonl"
    # a rewritten id (newest wins) and a torn last line
    lines = items.read_bytes().splitlines(keepends=True)
    items.write_bytes(b"".join(lines) + lines[5] + b'{"id": "torn", "sta')
    experiment = open_experiment(directory)

    monkeypatch.setattr(parallel, "PARALLEL_MIN_RECORDS", 10**9)
    serial = build_report(experiment)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_RECORDS", 1)
    monkeypatch.setattr(parallel.os, "cpu_count", lambda: 3)
    chunked = build_report(experiment)

    assert parallel.worker_count(301) == 3
    assert serial["items"]["completed"] == 301
    assert serial["warnings"] == chunked["warnings"] and len(serial["warnings"]) == 1
    assert json.dumps(serial, sort_keys=True) == json.dumps(chunked, sort_keys=True)


def test_split_contiguous_keeps_file_order() -> None:
    chunks = parallel.split_contiguous(list(range(1, 11)), 3)
    assert [sorted(c) for c in chunks] == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10]]
