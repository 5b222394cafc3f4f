"""Helpers for the Claude and Gemini batch tests (docs/guides/batches.md): the fakes by provider, a
rubric judged by one provider model on a fake, in-process runs and resumes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from autorubric_cli.experiment.session import RunOptions, resume_run, start_run
from tests.support.anthropic_batches import AnthropicBatchServer
from tests.support.batch_fake import BatchFake, Processed
from tests.support.experiment.criteria import CORRECT, HARMFUL, style
from tests.support.experiment.runs import KEY_ENV, KEY_VALUE
from tests.support.gemini_batches import GeminiBatchServer

# priced models with batch prices in litellm's map (half their list price)
MODELS = {"anthropic": "anthropic/claude-sonnet-4-5", "gemini": "gemini/gemini-2.5-flash"}
FAKES: dict[str, type[BatchFake]] = {"anthropic": AnthropicBatchServer, "gemini": GeminiBatchServer}
CRITERIA: list[dict[str, Any]] = [CORRECT, HARMFUL, style()]


def bodies(requests: list[Processed]) -> Counter[str]:
    """The request bodies the provider answered, as a multiset."""
    return Counter(json.dumps(p.body, sort_keys=True) for p in requests)


def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test key, and litellm's Anthropic beta-headers config read locally (no fetch)."""
    monkeypatch.setenv(KEY_ENV, KEY_VALUE)
    monkeypatch.setenv("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "true")


def provider_rubric(
    path: Path,
    provider: str,
    api_base: str,
    judge_extra: dict[str, Any] | None = None,
    **grader: Any,
) -> Path:
    judge = {
        **(judge_extra or {}),
        "model": MODELS[provider],
        "id": provider,
        "api_base": api_base,
        "api_key_env": KEY_ENV,
    }
    spec = {
        "criteria": CRITERIA,
        "grader": {
            "judges": [judge],
            "concurrency": 16,
            "timeout": 5,
            "max_attempts": 4,
            "retry": {"initial_wait": 0.01, "max_wait": 0.05, "max_retry_after": 0.1},
            **grader,
        },
    }
    path.write_text(yaml.safe_dump(spec))
    return path


def run_here(rubric: Path, data: Path, out: Path, *, batch: bool) -> Path:
    """`autorubric run` in this process (no cache: every call is paid, in both modes)."""
    return start_run(rubric, data, RunOptions(out=out, batch=batch, cache=False, grace_s=0.5))


def resume_here(directory: Path) -> list[str]:
    return resume_run(directory, retry_errors=False, concurrency=None, cache=False)
