"""Models litellm cannot price: learnt from the first reply, then cheap for litellm to look up.

Measured with litellm 1.106.2 (docs/design/judge-calls.md): for a model absent
from its cost map, litellm prices every reply anyway and, failing, repeats the model-info lookup
about 12 times per call (its lookup cache keeps only hits), ~0.5-0.8 ms CPU per call. litellm
has no setting that turns that calculation off. So once a reply of a model comes back unpriced
(`response_cost` None), the model is registered in litellm's cost map at a zero price: its
lookups then hit. Those models still record `cost: null`, never litellm's 0; models
litellm prices are never registered, so they keep litellm's own figures.
"""

from __future__ import annotations

import logging
from types import ModuleType

_UNPRICED: set[str] = set()

ZERO_PRICE = {
    "mode": "chat",
    "input_cost_per_token": 0.0,
    "output_cost_per_token": 0.0,
    "cache_creation_input_token_cost": 0.0,
    "cache_read_input_token_cost": 0.0,
}


def known_unpriced(model: str) -> bool:
    return model in _UNPRICED


def mark_unpriced(litellm: ModuleType, model: str, provider: str | None) -> None:
    """Register `model` at a zero price (quietly) and remember that its cost is unknown."""
    if model in _UNPRICED:
        return
    _UNPRICED.add(model)
    entry = dict(ZERO_PRICE, litellm_provider=provider) if provider else dict(ZERO_PRICE)
    logger = logging.getLogger("LiteLLM")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        litellm.register_model({model: entry})
    finally:
        logger.setLevel(level)


def register_unpriced_offline(litellm: ModuleType, model: str, provider: str) -> None:
    """`mark_unpriced` without litellm's `register_model`, which looks the model up first: for
    Ollama that lookup asks the server (`/api/show`) at its default address, not `api_base`."""
    if model in _UNPRICED:
        return
    _UNPRICED.add(model)
    litellm.model_cost[model] = dict(ZERO_PRICE, litellm_provider=provider)
