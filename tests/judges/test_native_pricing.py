"""A native call is priced exactly as litellm prices it, from litellm's own table, read without
importing litellm (judges/price_table.py)."""

from __future__ import annotations

import itertools
import subprocess
import sys
from typing import Any

import pytest

from autorubric_cli.judges import price_table
from autorubric_cli.judges.transports.litellm import load_litellm

USAGES: list[dict[str, Any]] = [
    {"prompt_tokens": 1234, "completion_tokens": 56},
    {
        "prompt_tokens": 3000,
        "completion_tokens": 400,
        "prompt_tokens_details": {"cached_tokens": 1024},
        "completion_tokens_details": {"reasoning_tokens": 300},
    },
    {
        "prompt_tokens": 250_000,
        "completion_tokens": 10,
        "prompt_tokens_details": {"cached_tokens": 0},
    },
    {
        "prompt_tokens": 300_000,
        "completion_tokens": 900,
        "prompt_tokens_details": {"cached_tokens": 4096},
        "completion_tokens_details": {"reasoning_tokens": 500},
    },
]
TIERS = [None, "default", "priority", "flex"]
# a name no other test has made litellm register at a zero price (judges/pricing.py does that
# for unpriced models in the same process)
# (fixed, not random: pytest-xdist workers must collect the same test ids)
UNKNOWN = "native-pricing-unknown-model"


def native_models() -> list[str]:
    """Every chat model of litellm's table a native judge can name, and a few it cannot price."""
    names = {f"openai/{UNKNOWN}", f"hosted_vllm/{UNKNOWN}", "hosted_vllm/gpt-4o-mini"}
    for key, entry in price_table.price_table().items():
        provider = entry.get("litellm_provider")
        if entry.get("mode") == "chat" and provider in ("openai", "hosted_vllm"):
            names.add(f"{provider}/{key.split('/', 1)[-1]}")
    return sorted(names)


def litellm_cost(model: str, usage: dict[str, Any], tier: str | None) -> float | None:
    litellm = load_litellm()
    provider, name = price_table.split_model(model)
    response = litellm.ModelResponse(
        model=name,
        usage=usage,
        service_tier=tier,
        choices=[{"message": {"role": "assistant", "content": "x"}}],
    )
    try:
        return float(
            litellm.completion_cost(
                completion_response=response, model=name, custom_llm_provider=provider
            )
        )
    except Exception:
        return None  # litellm raises for a model it cannot price


def test_the_table_is_litellms_own_package_data() -> None:
    path = price_table.table_path()
    assert path is not None and path.name == price_table.TABLE_FILE
    assert path.parent.name == "litellm"
    assert len(price_table.price_table()) > 1000


def test_every_native_model_is_priced_exactly_as_litellm_prices_it() -> None:
    models = native_models()
    priced = 0
    for model, usage, tier in itertools.product(models, USAGES, TIERS):
        ours = price_table.native_cost(model, usage, tier)
        assert ours == litellm_cost(model, usage, tier), (model, usage, tier)
        priced += ours is not None
    assert priced > 100  # the comparison really covers priced models
    assert len(models) > 50


def test_cached_reasoning_and_service_tier_change_the_price() -> None:
    """Guards against a comparison that would pass by ignoring the fields."""
    plain = {"prompt_tokens": 3000, "completion_tokens": 400}
    cached = {**plain, "prompt_tokens_details": {"cached_tokens": 1024}}
    model = "openai/gpt-4o-mini"
    assert price_table.native_cost(model, cached) < price_table.native_cost(model, plain)  # type: ignore[operator]
    priority = price_table.native_cost(model, plain, "priority")
    assert priority is not None and priority > price_table.native_cost(model, plain)  # type: ignore[operator]
    assert priority == litellm_cost(model, plain, "priority")


@pytest.mark.parametrize("model", [f"openai/{UNKNOWN}", "hosted_vllm/gpt-4o-mini"])
def test_a_model_litellm_cannot_price_costs_null(model: str) -> None:
    assert price_table.native_cost(model, USAGES[0]) is None
    assert litellm_cost(model, USAGES[0], None) is None


def test_reading_the_table_never_imports_litellm() -> None:
    code = (
        "import sys\n"
        "from autorubric_cli.judges.price_table import native_cost\n"
        "cost = native_cost('openai/gpt-4o-mini', {'prompt_tokens': 10, 'completion_tokens': 5})\n"
        "assert cost and cost > 0, cost\n"
        "assert not any(m.split('.')[0] == 'litellm' for m in sys.modules), 'litellm imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
