"""Which transport carries a judge's calls: the native OpenAI-compatible client or litellm.

`transport: auto` (the default) picks `native` only where the wire format is certainly OpenAI
chat completions and nothing litellm adds is needed (docs/guides/transports.md):

- the model is `hosted_vllm/...`, or `openai/...` with an explicit `api_base`;
- thinking is off or an effort level (a token budget is litellm's to map);
- no `params` key that litellm consumes or rewrites itself (`metadata`, `user`, `service_tier`,
  its own switches);
- on `openai/`, the model is not one of OpenAI's own reasoning models (litellm maps their
  parameters), nor a model OpenAI lists when thinking is on (litellm checks the parameters);
- litellm's price table prices the model in no way `price_table.native_cost` follows exactly.

Everything else (Anthropic, Gemini, Azure, Bedrock, OpenAI's own API, ...) goes through litellm.
Nothing here imports litellm.
"""

from __future__ import annotations

import re
from typing import Literal

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.price_table import exotic, model_entry, split_model
from autorubric_cli.judges.transports.simulated import is_simulated

TransportName = Literal["native", "litellm"]

# params litellm does not send as they are (seen with litellm 1.106.2 on openai/ and
# hosted_vllm/: `metadata` and `user` are dropped) or that change its pricing
LITELLM_PARAMS = frozenset(
    {
        "metadata",
        "user",
        "service_tier",
        "drop_params",
        "additional_drop_params",
        "allowed_openai_params",
        "api_version",
        "custom_llm_provider",
        "mock_response",
        "caching",
        "fallbacks",
        "base_model",
        "input_cost_per_token",
        "output_cost_per_token",
        "tags",
        "thinking",
        "reasoning_effort",
    }
)
OPENAI_REASONING_NAME = re.compile(r"^(o\d|gpt-5|codex)")


def litellm_param(name: str) -> bool:
    return name in LITELLM_PARAMS or name.startswith("litellm_")


def openai_reasoning_model(name: str, thinking: bool) -> bool:
    entry = model_entry(f"openai/{name}")
    if OPENAI_REASONING_NAME.match(name) or (entry or {}).get("supports_reasoning"):
        return True
    return thinking and entry is not None


def auto_transport(spec: JudgeSpec) -> tuple[TransportName, str]:
    """(transport, why) under `transport: auto`."""
    provider, name = split_model(spec.model)
    if provider == "openai" and spec.api_base is None:
        return "litellm", "openai/ without api_base (OpenAI's own API)"
    if provider not in ("openai", "hosted_vllm"):
        return "litellm", "not an OpenAI-compatible model prefix"
    if isinstance(spec.thinking, int) or (spec.thinking or "").strip().isdigit():
        return "litellm", "a thinking token budget"
    if any(litellm_param(p) for p in spec.params):
        return "litellm", "params litellm handles itself"
    if provider == "openai" and openai_reasoning_model(name, spec.thinking is not None):
        return "litellm", "an OpenAI model whose parameters litellm maps"
    if exotic(spec.model):
        return "litellm", "pricing only litellm follows"
    return "native", f"{provider}/ chat completions"


def transport_of(spec: JudgeSpec) -> tuple[TransportName, str]:
    """(transport, why) for a judge: its `transport` setting, or the `auto` rule."""
    if spec.transport != "auto":
        return spec.transport, "set in the rubric"
    return auto_transport(spec)


def describe_transport(spec: JudgeSpec) -> str:
    """What `check` prints for a judge: `native (why)`, `litellm (why)` or `simulated`."""
    if is_simulated(spec.model):
        return "simulated"
    name, why = transport_of(spec)
    return f"{name}: {why}"
