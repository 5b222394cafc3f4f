"""A rubric's operational settings: how its calls are made, never what they answer.

A run is locked by what decides its results (criteria, judges' models and sampling, scoring and
aggregation rules, seed, prompts), so `resume` refuses a rubric changed in any of those; the
settings below only pace, wait for, retry, route or stop the calls, so `resume` may change them
(docs/guides/runs.md). The line is the call cache's (docs/guides/cache-and-cost.md): what a
cached answer is keyed on decides results; timeouts, retries, concurrency and the key do not.

- grader: `concurrency`, `timeout`, `max_attempts`, `retry`, `breaker`, `adaptive_concurrency`
  (pacing, waiting, retrying, stopping), `cache` and `batch` (where an answer comes from:
  the call cache or a provider batch return the answer the call would), `max_cost` (when to
  stop), `workers` (which process sends);
- each judge: `max_concurrency`, `rpm`, `timeout` (pacing, waiting), `api_key_env` (which key
  pays), `batch`, `transport` (native or litellm send the same body), `prompt_caching` and
  `cache_ttl` (the provider's prompt cache: billing, not answers), `sample_request` (a
  judge's samples in one request or one each: each sample's answer is keyed as its own call).

Anything not named here decides results, new keys included until they are named.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from autorubric_cli.core.config import LLMConfig
from autorubric_cli.core.rubric import Rubric

GRADER_SETTINGS = (
    "concurrency",
    "timeout",
    "max_attempts",
    "retry",
    "breaker",
    "adaptive_concurrency",
    "cache",
    "batch",
    "max_cost",
    "workers",
)
JUDGE_SETTINGS = (
    "max_concurrency",
    "rpm",
    "timeout",
    "api_key_env",
    "batch",
    "transport",
    "prompt_caching",
    "cache_ttl",
    "sample_request",
)
Settings = dict[str, Any]
"""{grader key: value, ..., "judges": {judge id: {judge key: value}}}, as JSON."""


def settings_of(config: LLMConfig) -> Settings:
    """The operational settings of a configuration."""
    dumped = config.model_dump(mode="json")
    settings: Settings = {key: dumped[key] for key in GRADER_SETTINGS}
    settings["judges"] = {
        judge.judge_id: {key: value for key, value in spec.items() if key in JUDGE_SETTINGS}
        for judge, spec in zip(config.judges, dumped["judges"], strict=True)
    }
    return settings


def results_sha256(rubric: Rubric) -> str:
    """SHA-256 of the rubric as parsed, without its operational settings (canonical JSON: a
    comment, a key order or a timeout changes nothing)."""
    dumped = rubric.model_dump(mode="json")
    grader = dumped["grader"]
    for key in GRADER_SETTINGS:
        grader.pop(key)
    for judge in grader["judges"]:
        for key in JUDGE_SETTINGS:
            judge.pop(key)
    return hashlib.sha256(orjson.dumps(dumped, option=orjson.OPT_SORT_KEYS)).hexdigest()


def changed_settings(before: Settings, after: Settings) -> Settings:
    """The settings of `after` that differ from `before`, shaped as `Settings` (judges named in
    both only)."""
    changed: Settings = {
        key: after[key] for key in GRADER_SETTINGS if after.get(key) != before.get(key)
    }
    judges = {
        judge_id: {k: v for k, v in spec.items() if v != before["judges"][judge_id].get(k)}
        for judge_id, spec in after.get("judges", {}).items()
        if judge_id in before.get("judges", {})
    }
    judges = {judge_id: spec for judge_id, spec in judges.items() if spec}
    if judges:
        changed["judges"] = judges
    return changed


def with_settings(config: LLMConfig, settings: Settings) -> LLMConfig:
    """`config` with these settings (any subset, e.g. `changed_settings`); judges it does not
    have are ignored. Validated, as the rubric was."""
    dumped = config.model_dump(mode="json")
    dumped.update({k: v for k, v in settings.items() if k in GRADER_SETTINGS})
    for judge, spec in zip(config.judges, dumped["judges"], strict=True):
        spec.update(settings.get("judges", {}).get(judge.judge_id, {}))
    return LLMConfig.model_validate(dumped)
