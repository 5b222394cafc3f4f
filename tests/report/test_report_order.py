"""docs/guides/batches.md: every figure of a report is a function of the set of records, not of
their order."""

from __future__ import annotations

import json
import random
from pathlib import Path

from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.report.build import build_report
from tests.report.test_report_parallel import load_bench


def report_with_lines(directory: Path, lines: list[bytes]) -> dict:
    (directory / "items.jsonl").write_bytes(b"".join(lines))
    report = build_report(open_experiment(directory))
    report.pop("warnings")
    return report


def test_shuffled_items_jsonl_gives_the_identical_report(tmp_path: Path) -> None:
    directory = tmp_path / "exp"
    load_bench().write_experiment(directory, 240)
    lines = (directory / "items.jsonl").read_bytes().splitlines(keepends=True)
    errored = json.loads(lines[7])
    errored.update(status="error", error="judge failed", score=None)
    lines[7] = json.dumps(errored).encode() + b"\n"
    lines.append(lines[3])  # a repeated id: the newest line wins wherever it sits
    in_order = report_with_lines(directory, lines)
    assert in_order["score"]["ci95"] is not None
    assert in_order["ground_truth"] is not None
    for seed in range(3):
        shuffled = lines[:]
        random.Random(seed).shuffle(shuffled)
        assert report_with_lines(directory, shuffled) == in_order
    assert report_with_lines(directory, lines[::-1]) == in_order
