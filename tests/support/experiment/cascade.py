"""Rubrics and readers for the cascade tests: a cheap judge asked three times, a strong one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.support.experiment.cache import CRITERIA, judge
from tests.support.experiment.runs import valid_lines

SETTINGS = {
    "concurrency": 16,
    "timeout": 5,
    "max_attempts": 3,
    "retry": {"initial_wait": 0.01, "max_wait": 0.05, "max_retry_after": 0.3},
}


def cascade_rubric(
    path: Path,
    first_base: str,
    then_base: str | None = None,
    *,
    stages: tuple[str, ...] = ("first", "then"),
    threshold: float | dict[str, float] | None = None,
    **settings: Any,
) -> Path:
    """The first judge j0 (3 samples), the then judge j1; `stages` picks which are in the
    rubric, `threshold` adds `grader.cascade` (both stages then)."""
    judges = {
        "first": judge(first_base, 0, samples=3),
        "then": judge(then_base or first_base, 1),
    }
    grader: dict[str, Any] = {
        "judges": [judges[s] for s in stages],
        **SETTINGS,
        **settings,
    }
    if threshold is not None:
        grader["cascade"] = {"first": ["j0"], "then": ["j1"], "escalate_below": threshold}
    path.write_text(yaml.safe_dump({"criteria": CRITERIA, "grader": grader}))
    return path


def records(directory: Path) -> dict[str, dict[str, Any]]:
    return {line["id"]: line for line in valid_lines(directory / "items.jsonl")}


def cascade_report(directory: Path) -> dict[str, Any]:
    return json.loads((directory / "report.json").read_text())["cascade"]


def decisions(directory: Path) -> dict[tuple[str, str], tuple[bool, str]]:
    """(item, criterion) -> (escalated, outcome label) of a cascade run."""
    out = {}
    for item, record in records(directory).items():
        for c in record["criteria"]:
            label = c["option"]["label"] if c["option"] is not None else c["verdict"]
            out[(item, c["name"])] = (c["escalated"], label)
    return out
