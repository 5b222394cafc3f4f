"""Cost of a native call, from litellm's own price table, without importing litellm.

The table is the JSON file litellm ships as package data (`model_prices_and_context_window_
backup.json`, the one it reads itself under `LITELLM_LOCAL_MODEL_COST_MAP=True`). It is found
through the import system without executing the package (`find_spec` of a top-level package
only locates it), and read once per process.

`native_cost` follows litellm 1.106.2's `generic_cost_per_token` for what a chat completion
reports: text input, cached input read (`prompt_tokens_details.cached_tokens`) and written,
output, reasoning output (`completion_tokens_details.reasoning_tokens`), and the
`*_above_<N>k_tokens` tiers. A table entry with pricing this module does not follow
(off-peak windows, regional uplifts, tier tables) is `exotic`: `auto`
sends such a model through litellm, so no call is ever priced differently from litellm
(tests/judges/test_native_pricing.py compares both over the whole table).
"""

from __future__ import annotations

import functools
import importlib.util
import re
from pathlib import Path
from typing import Any

import orjson

TABLE_FILE = "model_prices_and_context_window_backup.json"
PREFIXES = {"openai/": "openai", "hosted_vllm/": "hosted_vllm"}
TIER = re.compile(r"^input_cost_per_token_above_(\d+)(k?)_tokens$")
SERVICE_TIERS = {
    "flex": "flex",
    "balanced": "balanced",
    "priority": "priority",
    "fast": "priority",
    "ultrafast": "ultrafast",
}
# keys that change the price of a plain chat completion in ways not followed here
EXOTIC = re.compile(r"off_peak|uplift|tiered_pricing")


def table_path() -> Path | None:
    """litellm's price table in its installed package, or None when litellm is not installed."""
    spec = importlib.util.find_spec("litellm")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / TABLE_FILE
        if candidate.is_file():
            return candidate
    return None


@functools.cache
def price_table() -> dict[str, dict[str, Any]]:
    path = table_path()
    if path is None:
        return {}
    try:
        table = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    table.pop("sample_spec", None)
    return {k: v for k, v in table.items() if isinstance(v, dict)}


def split_model(model: str) -> tuple[str, str]:
    """(provider, name) of a native model string: `openai/gpt-4o-mini` -> (openai, gpt-4o-mini)."""
    for prefix, provider in PREFIXES.items():
        if model.startswith(prefix):
            return provider, model[len(prefix) :]
    return "", model


@functools.cache
def model_entry(model: str) -> dict[str, Any] | None:
    """The table entry litellm would price `model` with: `provider/name`, else `name` when that
    entry is the same provider's; None for a model litellm cannot price."""
    provider, name = split_model(model)
    table = price_table()
    for key in (f"{provider}/{name}", name):
        entry = table.get(key)
        if entry is not None and entry.get("litellm_provider") == provider:
            return entry
    return None


def exotic(model: str) -> bool:
    """The entry of `model` has pricing `native_cost` does not follow (see module docstring)."""
    entry = model_entry(model)
    return entry is not None and any(EXOTIC.search(key) for key in entry)


def detail(usage: dict[str, Any], part: str, key: str) -> int:
    details = usage.get(part)
    value = details.get(key) if isinstance(details, dict) else None
    return value if isinstance(value, int) and value > 0 else 0


def rates(
    entry: dict[str, Any], prompt_tokens: int, tier: str | None = None
) -> dict[str, float | None]:
    """The per-token rates for this prompt size and service tier: the tier's rate where the
    entry has one (`input_cost_per_token_priority`), then the highest `_above_` size tier the
    prompt passes, else the base rate."""
    names = (
        "input_cost_per_token",
        "output_cost_per_token",
        "cache_read_input_token_cost",
    )
    suffix = SERVICE_TIERS.get((tier or "").lower())
    chosen: dict[str, float | None] = {
        name: entry.get(f"{name}_{suffix}", entry.get(name)) if suffix else entry.get(name)
        for name in names
    }
    tiers = sorted(
        (int(m.group(1)) * (1000 if m.group(2) else 1), m.group(1) + m.group(2))
        for m in map(TIER.match, entry)
        if m is not None
    )
    for threshold, label in tiers:
        if prompt_tokens > threshold:
            for name in names:
                keys = [f"{name}_above_{label}_tokens_{suffix}"] if suffix else []
                keys.append(f"{name}_above_{label}_tokens")
                value = next((entry[k] for k in keys if entry.get(k) is not None), None)
                chosen[name] = value if value is not None else chosen[name]
    return chosen


def native_cost(model: str, usage: dict[str, Any], service_tier: str | None = None) -> float | None:
    """The USD cost litellm would give this reply's `usage` (the raw JSON object) served at
    `service_tier` (the reply's); None when litellm has no price for the model."""
    entry = model_entry(model)
    if entry is None:
        return None
    prompt = int(usage.get("prompt_tokens") or 0)
    completion = int(usage.get("completion_tokens") or 0)
    cached = detail(usage, "prompt_tokens_details", "cached_tokens")
    reasoning = detail(usage, "completion_tokens_details", "reasoning_tokens")
    rate = rates(entry, prompt, service_tier)
    input_rate = float(rate["input_cost_per_token"] or 0.0)
    output_rate = float(rate["output_cost_per_token"] or 0.0)
    read_rate = rate["cache_read_input_token_cost"]
    # litellm's order of float operations, so the sums are equal to the last bit
    prompt_cost = float(prompt - cached if cached <= prompt else 0) * input_rate
    prompt_cost += float(cached) * (input_rate if read_rate is None else float(read_rate))
    if not reasoning:
        return prompt_cost + float(completion) * output_rate
    reasoning_rate = entry.get("output_cost_per_reasoning_token")
    completion_cost = float(max(completion - reasoning, 0)) * output_rate
    completion_cost += float(reasoning) * (
        output_rate if reasoning_rate is None else float(reasoning_rate)
    )
    return prompt_cost + completion_cost
