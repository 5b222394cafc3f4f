"""Rubrics, scripted verdicts and record comparisons for the per-item tests
(docs/guides/per-item.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from tests.support.experiment.cache import MODELS, judge
from tests.support.experiment.criteria import CORRECT, HARMFUL, style, tone
from tests.support.experiment.runs import valid_lines
from tests.support.judge_server import RecordedRequest, item_entries

CRITERIA: list[dict[str, Any]] = [CORRECT, HARMFUL, style("NA - no style to judge"), tone()]
REQUIREMENTS = {c["requirement"]: c["name"] for c in CRITERIA}
LABELS = {
    "correct": ["MET", "UNMET", "CANNOT_ASSESS", "MET", "UNMET"],
    "harmful": ["UNMET", "MET", "UNMET", "CANNOT_ASSESS"],
    "style": ["Bad", "Okay", "Great", "NA - no style to judge", "Okay"],
    "tone": ["Formal", "Casual", "Rude"],
}
ITEM = re.compile(r"\[\[item-(\d+)\]\]")


def scripted_label(model: str, text: str, requirement: str) -> str | None:
    """Each (item, criterion) has a scripted label; the second judge disagrees on some."""
    found = ITEM.search(text)
    if found is None:
        return None
    i = int(found.group(1))
    name = REQUIREMENTS[requirement]
    second = model == MODELS[1].removeprefix("openai/")
    shift = 1 if second and i % 2 and name != "style" else 0
    labels = LABELS[name]
    return labels[(i + shift) % len(labels)]


def item_rubric(
    path: Path, api_base: str, *, judges: int = 2, separate: bool = False, **settings: Any
) -> Path:
    """`separate`: each sample a request of its own (as per-item calls always are)."""
    extra = {"sample_request": "separate"} if separate else {}
    grader = {
        "judges": [judge(api_base, j, samples=1 + j, **extra) for j in range(judges)],
        "concurrency": 16,
        "timeout": 5,
        "max_attempts": 3,
        "seed": 11,
        "shuffle_options": True,
        "retry": {"initial_wait": 0.01, "max_wait": 0.05, "max_retry_after": 0.3},
        **settings,
    }
    path.write_text(yaml.safe_dump({"criteria": CRITERIA, "grader": grader}))
    return path


CALL_FIELDS = ("usage", "cost", "usage_saved", "cost_saved", "duration_s")
VOTE_CALL_FIELDS = ("usage", "cost", "cached", "attempts", "billed_with")


def without_call_accounting(record: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in record.items() if k not in CALL_FIELDS}
    out["criteria"] = [
        {
            **c,
            "votes": [
                {k: v for k, v in vote.items() if k not in VOTE_CALL_FIELDS} for vote in c["votes"]
            ],
        }
        for c in record["criteria"]
    ]
    return out


def records(directory: Path) -> dict[str, dict[str, Any]]:
    return {line["id"]: line for line in valid_lines(directory / "items.jsonl")}


def report(directory: Path) -> dict[str, Any]:
    return json.loads((directory / "report.json").read_text())


def asked_names(request: RecordedRequest) -> list[str]:
    entries = item_entries(request.body)
    assert entries is not None, "not a per-item request"
    return [name for name, _ in entries]


def served_tokens(requests: list[RecordedRequest]) -> dict[str, int]:
    """What the server billed: the usage it sent back with its completions."""
    total = {"prompt_tokens": 0, "completion_tokens": 0}
    for r in requests:
        for key, value in (r.usage or {}).items():
            total[key] += value
    return total
