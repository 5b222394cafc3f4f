"""Whether litellm can route a judge's model to a provider, decided before any call.

litellm's own rule (`get_llm_provider`, offline) is asked; a refused model gets a one-line
reason with the closest provider prefix (litellm's provider list, plus `simulated`) instead of
litellm's long "LLM Provider NOT provided" text. Simulated judges are not litellm's, and neither
are judges on the native transport (an OpenAI-compatible prefix by its own rule): a run of those
never imports litellm, so neither does this check.
"""

from __future__ import annotations

import difflib

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.transports.choice import transport_of
from autorubric_cli.judges.transports.litellm import load_litellm
from autorubric_cli.judges.transports.simulated import PREFIX, is_simulated


def provider_prefixes() -> list[str]:
    """The provider prefixes a model string may start with."""
    names = [getattr(p, "value", str(p)) for p in load_litellm().provider_list]
    return [PREFIX.rstrip("/"), *names]


def route_problem(spec: JudgeSpec) -> str | None:
    """Why litellm cannot place the judge's model, with the fix; None when it can."""
    if is_simulated(spec.model) or transport_of(spec)[0] == "native":
        return None
    custom = spec.params.get("custom_llm_provider")
    try:
        load_litellm().get_llm_provider(
            model=spec.model, custom_llm_provider=custom, api_base=spec.api_base
        )
    except Exception:  # litellm raises BadRequestError (and others) for a model it cannot place
        return _reason(spec)
    return None


def _reason(spec: JudgeSpec) -> str:
    if "/" not in spec.model:
        return (
            f"judge {spec.judge_id!r}: litellm cannot tell the provider of {spec.model!r}; "
            f"write the model as PROVIDER/{spec.model} (e.g. openai/{spec.model})"
        )
    prefix, name = spec.model.split("/", 1)
    close = difflib.get_close_matches(prefix, provider_prefixes(), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0] + '/' + name!r}?" if close else ""
    return (
        f"judge {spec.judge_id!r}: unknown provider {prefix!r} in model {spec.model!r} "
        f"(litellm's providers and `simulated`){hint}"
    )
