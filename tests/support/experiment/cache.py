"""Rubrics and record comparisons for the call-cache tests (docs/guides/cache-and-cost.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.support.experiment.criteria import CORRECT, HARMFUL, style, tone
from tests.support.experiment.runs import KEY_ENV, valid_lines

CRITERIA: list[dict[str, Any]] = [
    CORRECT,
    HARMFUL,
    style(),
    tone({"label": "Unclear", "value": 0.2}),
]
MODELS = ("openai/gpt-4.1-mini", "openai/gpt-4o-mini", "openai/gpt-4.1-nano")


def judge(api_base: str, j: int, **extra: Any) -> dict[str, Any]:
    return {
        "model": MODELS[j],
        "id": f"j{j}",
        "api_base": api_base,
        "api_key_env": KEY_ENV,
        "temperature": 0.0,
        "max_concurrency": 8,
        **extra,
    }


def cache_rubric(
    path: Path,
    api_base: str,
    *,
    judges: int = 2,
    criteria: list[dict[str, Any]] | None = None,
    judge_extra: dict[int, dict[str, Any]] | None = None,
    **settings: Any,
) -> Path:
    """A rubric with NO seed (the fixed default 0 must keep prompts identical across runs)."""
    extra = judge_extra or {}
    grader = {
        "judges": [judge(api_base, j, **extra.get(j, {})) for j in range(judges)],
        "concurrency": 16,
        "timeout": 5,
        "max_attempts": 3,
        "retry": {"initial_wait": 0.01, "max_wait": 0.05, "max_retry_after": 0.3},
        **settings,
    }
    path.write_text(yaml.safe_dump({"criteria": criteria or CRITERIA, "grader": grader}))
    return path


def by_id(directory: Path) -> dict[str, dict[str, Any]]:
    return {line["id"]: line for line in valid_lines(directory / "items.jsonl")}


PAID_FIELDS = ("usage", "cost", "usage_saved", "cost_saved", "duration_s")


def without_cache_marks(record: dict[str, Any]) -> dict[str, Any]:
    """A record with what legitimately differs between a paid and a cached run taken out."""
    out = {k: v for k, v in record.items() if k not in PAID_FIELDS}
    out["criteria"] = [
        {**c, "votes": [{k: v for k, v in vote.items() if k != "cached"} for vote in c["votes"]]}
        for c in record["criteria"]
    ]
    return out
