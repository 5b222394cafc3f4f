"""The one place that talks to litellm. litellm is imported lazily, on the first real call.

Measured facts this module relies on (litellm 1.106.2, see DESIGN): importing litellm costs
~2.3 s; without LITELLM_LOCAL_MODEL_COST_MAP it fetches a cost map at import, without
LITELLM_MODE=PRODUCTION it loads a `.env`; it retries on its own unless max_retries=0 and
num_retries=0; a provider's `Retry-After` is on `exc.litellm_response_headers`;
`completion_cost` raises for models it cannot price.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.errors import InputError
from autorubric_cli.judges.litellm_env import offline_litellm_environment
from autorubric_cli.judges.policy.providers import facts_for, priced
from autorubric_cli.judges.policy.timeouts import call_timeout
from autorubric_cli.judges.pricing import known_unpriced, mark_unpriced, register_unpriced_offline
from autorubric_cli.judges.prompt_caching import cache_marked
from autorubric_cli.judges.request import Call, CallRequest, Choice, Completion
from autorubric_cli.judges.transports.body import call_body
from autorubric_cli.judges.transports.litellm_errors import litellm_failure


def load_litellm() -> ModuleType:
    """Import litellm with the environment it needs to stay offline, quiet and lean."""
    if "litellm" not in sys.modules:
        offline_litellm_environment()
    import litellm

    litellm.suppress_debug_info = True
    return litellm


async def close_clients() -> None:
    """Close litellm's cached async HTTP clients; a no-op when litellm was never imported.

    The closed clients are also dropped from litellm's client cache: left there, a later call
    on the same event loop would be handed a closed client.
    """
    litellm = sys.modules.get("litellm")
    if litellm is not None:
        await litellm.close_litellm_async_clients()
        litellm.in_memory_llm_clients_cache.flush_cache()


def api_key_for(spec: JudgeSpec) -> str | None:
    """The key value from the environment, read at call time; InputError when unset."""
    if spec.api_key_env is None:
        return None
    value = os.environ.get(spec.api_key_env)
    if not value:
        raise InputError(
            f"judge {spec.judge_id!r} reads its API key from the environment variable "
            f"{spec.api_key_env}, which is not set; export it or change api_key_env",
            key="api_key_env",
        )
    return value


def request_kwargs(
    spec: JudgeSpec, timeout: float, call: Call, messages: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Arguments for `litellm.acompletion`: the call's body (`body.call_body`, with `messages`
    when given) without the key. litellm never retries itself."""
    kwargs = call_body(spec, spec.model, call, messages)
    kwargs.update(timeout=call_timeout(spec, timeout)[0], max_retries=0, num_retries=0)
    if spec.api_base is not None:
        kwargs["api_base"] = spec.api_base
    return kwargs


def count(value: Any) -> int:
    return int(value) if isinstance(value, int | float) else 0


def field(source: Any, name: str) -> Any:
    """A field of a provider's JSON object (a dict) or of litellm's typed one."""
    return source.get(name) if isinstance(source, dict) else getattr(source, name, None)


def usage_counts(usage: Any) -> dict[str, int]:
    """Prompt and completion tokens; and, when the provider billed them, the prompt tokens read
    from its cache (`cached_prompt_tokens`: `prompt_tokens_details.cached_tokens`, litellm's
    mapping of OpenAI's field, Anthropic's `cache_read_input_tokens`, Gemini's
    `cachedContentTokenCount`) and written to it (`cache_write_tokens`: Anthropic's
    `cache_creation_input_tokens`). `prompt_tokens` includes both, as litellm reports it.
    `usage` is a reply's usage as JSON (the native transport) or litellm's object."""
    details = field(usage, "prompt_tokens_details")
    counts = {
        "prompt_tokens": count(field(usage, "prompt_tokens")),
        "completion_tokens": count(field(usage, "completion_tokens")),
    }
    cached = count(field(details, "cached_tokens"))
    written = count(field(usage, "cache_creation_input_tokens")) or count(
        field(details, "cache_creation_tokens")
    )
    if cached:
        counts["cached_prompt_tokens"] = cached
    if written:
        counts["cache_write_tokens"] = written
    return counts


def cost_of(litellm: ModuleType, response: Any) -> float | None:
    """The call's cost in USD; None for a model litellm cannot price (it raises for those).

    litellm usually prices the response already (`_hidden_params["response_cost"]`, None when
    it could not); `completion_cost` is the fallback.
    """
    hidden = getattr(response, "_hidden_params", None) or {}
    try:
        cost = hidden.get("response_cost")
        if "response_cost" not in hidden:
            cost = litellm.completion_cost(completion_response=response)
    except Exception:
        return None
    return float(cost) if cost is not None else None


def priced_cost(litellm: ModuleType, response: Any, model: str) -> float | None:
    """`cost_of`, except for a model litellm cannot price: None, and registered (pricing.py)."""
    if known_unpriced(model):
        return None
    cost = cost_of(litellm, response)
    if cost is None:
        provider = getattr(response, "_hidden_params", {}).get("custom_llm_provider")
        mark_unpriced(litellm, model, provider if isinstance(provider, str) else None)
    return cost


def prompt_cache_saved(
    litellm: ModuleType, model: str, usage: dict[str, int], cost: float | None
) -> float | None:
    """What the call would have cost with no cached tokens, minus its cost; None when the
    provider billed no cache tokens or the model is unpriced."""
    if cost is None or not (usage.get("cached_prompt_tokens") or usage.get("cache_write_tokens")):
        return None
    try:
        full = litellm.cost_per_token(
            model=model,
            prompt_tokens=usage["prompt_tokens"],
            completion_tokens=usage["completion_tokens"],
        )
    except Exception:  # litellm raises for a model it cannot price
        return None
    return float(sum(full)) - cost


def reply_choices(choices: Any) -> tuple[Choice, ...]:
    """A reply's choices in order of their `index`: each message's text and reasoning trace
    (`reasoning_content`, else `reasoning`), from a provider's JSON (dicts) or litellm's
    objects alike. At least one, empty when the reply has none."""
    found = []
    for position, choice in enumerate(choices or []):
        message = field(choice, "message")
        content = field(message, "content")
        reasoning = field(message, "reasoning_content") or field(message, "reasoning")
        index = field(choice, "index")
        found.append(
            (
                index if isinstance(index, int) else position,
                Choice(
                    content if isinstance(content, str) else None,
                    reasoning if isinstance(reasoning, str) and reasoning else None,
                    # litellm's word for every provider's (map_finish_reason)
                    field(choice, "finish_reason") == "length",
                ),
            )
        )
    ordered = tuple(choice for _, choice in sorted(found, key=lambda pair: pair[0]))
    return ordered or (Choice(None),)


def completion_of(
    litellm: ModuleType,
    response: Any,
    model: str,
    price: Callable[[ModuleType, Any, str], float | None] = priced_cost,
) -> Completion:
    choices = reply_choices(getattr(response, "choices", None))
    raw_usage = getattr(response, "usage", None)
    usage = {} if raw_usage is None else usage_counts(raw_usage)
    cost = price(litellm, response, model)
    return Completion(
        content=choices[0].content,
        reasoning=choices[0].reasoning,
        usage=usage,
        cost=cost,
        prompt_cache_saved=prompt_cache_saved(litellm, model, usage, cost),
        model=getattr(response, "model", None),
        truncated=choices[0].truncated,
        choices=choices if len(choices) > 1 else (),
    )


async def call_litellm(
    spec: JudgeSpec,
    timeout: float,
    call: Call,
    *,
    messages: list[dict[str, Any]] | None = None,
    client: Any = None,
    price: Callable[[ModuleType, Any, str], float | None] = priced_cost,
) -> Completion:
    """One `litellm.acompletion` call, its failure classified; the one call path, whether it
    runs in this process (`LiteLLMTransport`), in a judge worker process (workers.py) or over a
    provider batch (`client`: litellm's HTTP client whose network is the batch, batch/capture.py;
    `price`: the batch price). `messages`: what is sent instead of `call.messages` (with cache
    marks)."""
    litellm = load_litellm()
    facts = facts_for(spec.model)
    if facts.probes_model_info and not priced(spec.model):
        register_unpriced_offline(litellm, spec.model, facts.name)
    key = api_key_for(spec)
    kwargs = request_kwargs(spec, timeout, call, messages)
    if key is not None:
        kwargs["api_key"] = key
    if client is not None:
        kwargs["client"] = client
    failure: Exception | None = None
    try:
        response = await litellm.acompletion(**kwargs)
    except Exception as exc:
        failure = litellm_failure(
            exc,
            judge_id=spec.judge_id,
            secret=key,
            key_env=spec.api_key_env,
            api_base=spec.api_base,
            deadline=call_timeout(spec, timeout),
        )
    if failure is not None:
        raise failure  # raised outside `except` so the provider's text is not chained
    return completion_of(litellm, response, spec.model, price)


class LiteLLMTransport:
    """Calls a real provider through `litellm.acompletion`, in this process."""

    def __init__(self, spec: JudgeSpec, timeout: float) -> None:
        self.spec = spec
        self.timeout = timeout

    async def complete(self, call: Call) -> Completion:
        sent = cache_marked(self.spec, call.messages, prefix_of(call.request))
        return await call_litellm(self.spec, self.timeout, call, messages=sent)

    async def aclose(self) -> None:
        """Nothing of its own: litellm's clients are the process's (`close_clients`)."""


def prefix_of(request: CallRequest) -> int | tuple[int, ...] | None:
    """Where a call's cached parts end: its shared prefix's length (None: no cache marks); a
    pairwise call's prefix also ends a part after its first response (judges/pairs.py)."""
    prefix: int | None = getattr(request, "prefix_chars", None)
    first: int | None = getattr(request, "first_chars", None)
    return prefix if prefix is None or first is None else (first, prefix)
