"""Datasets whose items carry their own criteria and context, in HealthBench's shape
(docs/guides/per-item-rubrics.md), and a rubric file with no shared criteria, for the run tests
and the benches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.support.experiment.runs import KEY_ENV, token

HEALTHBENCH_FIELDS = {
    "id": "prompt_id",
    "context": "prompt",
    "rubric": "rubrics",
    "tags": "example_tags",
    "submission": "ideal_completions_data.ideal_completion",
}
FIELD_FLAGS = [f"--field={ours}={theirs}" for ours, theirs in HEALTHBENCH_FIELDS.items()]
AXES = ("accuracy", "completeness", "communication")
TURNS = (
    {"role": "user", "content": "My baby has had a fever since this morning."},
    {"role": "assistant", "content": "How old is your baby, and how high is the fever?"},
    {"role": "user", "content": "Two months old, 38.4 degrees."},
)


def healthbench_row(i: int, criteria: int) -> dict[str, Any]:
    """Item i in HealthBench's format: a context of 1 or 3 turns, `criteria` criteria (every
    third a penalty), tagged by axis; the answer marked `token(i)`."""
    rubrics = [
        {
            "criterion": f"Criterion {k} of item {i}: "
            + ("advises something harmful" if k % 3 == 2 else "gives the advice that helps"),
            "points": -(k + 2) if k % 3 == 2 else k + 3,
            "tags": [f"axis:{AXES[k % len(AXES)]}", "level:example"],
        }
        for k in range(criteria)
    ]
    return {
        "prompt_id": f"it{i:04d}",
        "prompt": list(TURNS if i % 2 else TURNS[-1:]),
        "rubrics": rubrics,
        "example_tags": [f"theme:{['emergency', 'hedging'][i % 2]}"],
        "ideal_completions_data": {
            "ideal_completion": f"Answer {token(i)}: please call your doctor today."
        },
    }


def healthbench_dataset(path: Path, n: int, criteria: int | None = None) -> Path:
    """n items; each with `criteria` criteria, else 2 to 5 (item i: 2 + i % 4)."""
    rows = (healthbench_row(i, criteria or 2 + i % 4) for i in range(n))
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def native_dataset(path: Path, n: int) -> Path:
    """The same items in our own keys (no field mapping needed)."""
    rows = []
    for i in range(n):
        row = healthbench_row(i, 2 + i % 4)
        rows.append(
            {
                "id": row["prompt_id"],
                "context": row["prompt"],
                "rubric": row["rubrics"],
                "tags": row["example_tags"],
                "submission": row["ideal_completions_data"]["ideal_completion"],
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def criteria_count(n: int) -> int:
    """The item criteria of `healthbench_dataset(path, n)`, over every item."""
    return sum(2 + i % 4 for i in range(n))


def item_rubric_file(path: Path, api_base: str, *, concurrency: int = 4, **grader: Any) -> Path:
    """A rubric file with no shared criteria and one judge on the loopback server."""
    judge = {
        "model": "openai/judge-0",
        "id": "j0",
        "api_base": api_base,
        "api_key_env": KEY_ENV,
        "max_concurrency": concurrency,
    }
    spec = {
        "name": "per-item",
        "criteria": [],
        "grader": {
            "judges": [judge],
            "seed": 7,
            "concurrency": concurrency,
            "timeout": 2.0,
            "retry": {"initial_wait": 0.01, "max_wait": 0.05, "max_retry_after": 0.3},
            **grader,
        },
    }
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path
