"""Operational settings against what decides results (core/settings.py): the line `resume`
holds a rubric to."""

from __future__ import annotations

from typing import Any

import pytest

from autorubric_cli.core.config import LLMConfig
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.core.settings import (
    GRADER_SETTINGS,
    JUDGE_SETTINGS,
    changed_settings,
    results_sha256,
    settings_of,
    with_settings,
)

BASE: dict[str, Any] = {
    "criteria": [
        {"name": "correct", "requirement": "The answer is correct"},
        {"name": "style", "requirement": "Style?", "options": [
            {"label": "Bad", "value": 0.0}, {"label": "Good", "value": 1.0}]},
    ],
    "grader": {"judges": [{"model": "openai/a", "id": "a", "api_base": "http://x/v1"}]},
}  # fmt: skip


def rubric(grader: dict[str, Any] | None = None, judge: dict[str, Any] | None = None) -> Rubric:
    judges = [{**BASE["grader"]["judges"][0], **(judge or {})}]
    return Rubric.model_validate(
        {**BASE, "grader": {**BASE["grader"], **(grader or {}), "judges": judges}}
    )


OPERATIONAL_GRADER = {
    "concurrency": 3,
    "timeout": 600.0,
    "max_attempts": 2,
    "retry": {"initial_wait": 5.0},
    "breaker": {"failed_votes": 99},
    "adaptive_concurrency": False,
    "cache": False,
    "batch": True,
    "max_cost": 1.5,
    "workers": 0,
}
OPERATIONAL_JUDGE = {
    "max_concurrency": 2,
    "rpm": 30.0,
    "timeout": 5.0,
    "api_key_env": "OTHER_KEY",
    "batch": False,
    "transport": "litellm",
    "prompt_caching": "off",
    "cache_ttl": "1h",
    "sample_request": "separate",
}
RESULTS_GRADER = {
    "seed": 9,
    "shuffle_options": False,
    "aggregation": "unanimous",
    "ordinal_aggregation": "median",
    "llm_calls": "per_item",
    "system_prompt": "Be strict.",
    "auto_na_option": True,
}
RESULTS_JUDGE = {
    "model": "openai/b",
    "id": "b",
    "weight": 2.0,
    "temperature": 0.7,
    "max_tokens": 50,
    "api_base": "http://y/v1",
    "samples": 3,
    "params": {"top_p": 0.5},
}


def test_every_setting_is_named_once_and_exists() -> None:
    assert set(OPERATIONAL_GRADER) == set(GRADER_SETTINGS)
    assert set(OPERATIONAL_JUDGE) == set(JUDGE_SETTINGS)


@pytest.mark.parametrize(("key", "value"), OPERATIONAL_GRADER.items())
def test_a_grader_setting_leaves_the_results_hash(key: str, value: Any) -> None:
    assert results_sha256(rubric({key: value})) == results_sha256(rubric())


@pytest.mark.parametrize(("key", "value"), OPERATIONAL_JUDGE.items())
def test_a_judge_setting_leaves_the_results_hash(key: str, value: Any) -> None:
    assert results_sha256(rubric(judge={key: value})) == results_sha256(rubric())


@pytest.mark.parametrize(("key", "value"), RESULTS_GRADER.items())
def test_what_decides_results_changes_the_hash(key: str, value: Any) -> None:
    assert results_sha256(rubric({key: value})) != results_sha256(rubric())


@pytest.mark.parametrize(("key", "value"), RESULTS_JUDGE.items())
def test_a_judge_s_model_and_sampling_change_the_hash(key: str, value: Any) -> None:
    assert results_sha256(rubric(judge={key: value})) != results_sha256(rubric())


def test_a_criterion_s_text_changes_the_hash() -> None:
    edited = Rubric.model_validate(
        {
            **BASE,
            "criteria": [{**BASE["criteria"][0], "requirement": "Correct?"}, BASE["criteria"][1]],
        }
    )
    assert results_sha256(edited) != results_sha256(rubric())


def test_changed_settings_apply_over_another_configuration() -> None:
    before = settings_of(rubric().grader)
    after = settings_of(rubric({"timeout": 600.0}, {"rpm": 30.0}).grader)
    changed = changed_settings(before, after)
    assert changed == {"timeout": 600.0, "judges": {"a": {"rpm": 30.0}}}
    recorded = LLMConfig.model_validate({**BASE["grader"], "concurrency": 5})
    applied = with_settings(recorded, changed)
    assert (applied.timeout, applied.judges[0].rpm, applied.concurrency) == (600.0, 30.0, 5)
    assert changed_settings(before, before) == {}
