"""Provider facts: what we must decide per provider, in one table, not `if provider ==` around.

litellm hides each provider's wire format; what it does not hide, and what we decide here:
which temperature a model accepts (with thinking on, or at all), where a provider puts its
retry hint, what its overload looks like, and how it takes a reply schema (its structured-output
dialects, in the order `structured_output: auto` tries them). Facts come from the providers'
public API references and litellm 1.106.2's transformation code (`litellm/llms/<provider>/`);
docs/guides/providers.md shows them as a table.

`preflight` turns the facts into problems with a judge's configuration, before any call:
errors for what the provider will certainly refuse, warnings for what will work worse than
the user may think. It is pure (no litellm import: `check` stays fast); the price lookup reads
litellm's bundled cost map file directly (price_table.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Literal

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.price_table import price_table

Dialect = Literal["json_schema", "json_object", "prompt"]
"""How a request asks for the reply's JSON schema (transports/body.py renders it):
`json_schema`, OpenAI's `response_format: {type: json_schema, json_schema: {...}}` (litellm maps it
to each provider's own form: Anthropic `output_format` or a forced tool, Gemini
`response_json_schema`, Ollama `format: <schema>`); `json_object`, `{type: json_object, schema:
...}` as llama.cpp's servers take it (Ollama: `format: "json"`); `prompt`, no schema at all: the
prompt states the reply's shape."""
ALL_DIALECTS: tuple[Dialect, ...] = ("json_schema", "json_object", "prompt")


@dataclass(frozen=True)
class ProviderFacts:
    """One provider's behaviour we act on.

    `thinking_fixes_temperature`: with thinking on, the API accepts temperature 1 only (Anthropic
    400 "`temperature` may only be set to 1 when thinking is enabled"); we then send none.
    `temperature_one_models`: substrings of model names that accept temperature 1 only (litellm
    raises UnsupportedParamsError before sending); we then send none.
    `thinking_budget`: False where litellm refuses a token budget (`thinking` param) and takes an
    effort (`reasoning_effort`) only; None where we do not know.
    `summarized_thinking_models`: adaptive-thinking models (Opus 4.7+) whose thinking blocks come
    back blank unless `display: summarized` is asked for; we ask, so the thinking is recorded.
    `probes_model_info`: litellm asks the server for model info (Ollama `/api/show`) when the
    model is not in its cost map, at its default address (localhost:11434), not the judge's
    `api_base`; the model is registered unpriced before the first call instead (cost null).
    `dialects`: the structured-output dialects the provider takes, in the order `auto` tries
    them (the next one after a refusal); `("prompt",)` where litellm sends no schema at all.
    `several_choices`: one request returns several choices of one prompt (OpenAI's `n`, which
    litellm maps to Gemini's `candidateCount`), so a judge's samples go in one request by
    default (judges/samples.py). `retry_hint`/`overload`: where the provider says how long to
    wait, and what it sends when overloaded (for the docs and `failures`).
    """

    name: str
    thinking: str = "✗"
    thinking_budget: bool | None = None  # takes `thinking: <tokens>`; False: an effort only
    summarized_thinking_models: tuple[str, ...] = ()
    thinking_fixes_temperature: bool = False
    temperature_one_models: tuple[str, ...] = ()
    reasoning_temperature_models: tuple[str, ...] = ()
    dialects: tuple[Dialect, ...] = ALL_DIALECTS
    probes_model_info: bool = False
    several_choices: bool = False
    retry_hint: str = "`Retry-After` / `retry-after-ms` header"
    overload: str = "HTTP 503"


OPENAI_REASONING = ("/o1", "/o3", "/o4")
# gpt-5 reasoning models take a temperature other than 1 only with reasoning_effort "none"
# (litellm gpt_5_transformation.py); gpt-5-chat takes any
GPT5 = ("/gpt-5",)
ANTHROPIC_SAMPLING_REMOVED = ("opus-4-7", "opus_4_7", "opus-4.7", "opus-4-8", "opus-4.8", "fable")

OPENAI = ProviderFacts(
    "openai",
    several_choices=True,
    thinking_budget=False,
    thinking="`reasoning_effort` (o-series, gpt-5)",
    temperature_one_models=OPENAI_REASONING,
    reasoning_temperature_models=GPT5,
)
# litellm maps only `json_schema` to these providers' own schema forms
SCHEMA_ONLY: tuple[Dialect, ...] = ("json_schema", "prompt")
GEMINI = ProviderFacts(
    "gemini",
    dialects=SCHEMA_ONLY,
    several_choices=True,
    thinking_budget=True,
    thinking="`thinkingConfig` (budget or level)",
    retry_hint="body: `google.rpc.RetryInfo.retryDelay`",
    overload='HTTP 503 `UNAVAILABLE` ("The model is overloaded")',
)
OLLAMA = ProviderFacts(
    "ollama",
    thinking_budget=False,
    thinking="`think` (reasoning models)",
    retry_hint="none",
    probes_model_info=True,
)
# litellm 1.106.2 lists no `response_format` for these (get_supported_openai_params)
PROMPTED = ProviderFacts("cohere", dialects=("prompt",))

PROVIDERS: dict[str, ProviderFacts] = {
    f.name: f
    for f in (
        OPENAI,
        replace(OPENAI, name="azure", thinking="`reasoning_effort` (o-series, gpt-5 deployments)"),
        ProviderFacts(
            "anthropic",
            thinking_budget=True,
            thinking="`thinking` blocks (budget or effort)",
            thinking_fixes_temperature=True,
            temperature_one_models=ANTHROPIC_SAMPLING_REMOVED,
            summarized_thinking_models=ANTHROPIC_SAMPLING_REMOVED,
            dialects=SCHEMA_ONLY,
            retry_hint="`retry-after` header",
            overload="HTTP 529 `overloaded_error`",
        ),
        ProviderFacts(
            "bedrock",
            thinking_budget=True,
            thinking="Claude models: `thinking` in additionalModelRequestFields",
            thinking_fixes_temperature=True,
            dialects=SCHEMA_ONLY,
            temperature_one_models=ANTHROPIC_SAMPLING_REMOVED,
            retry_hint="none (429 ThrottlingException; our backoff)",
            overload="HTTP 503 ServiceUnavailableException",
        ),
        GEMINI,
        replace(GEMINI, name="vertex_ai"),
        OLLAMA,
        replace(OLLAMA, name="ollama_chat"),
        ProviderFacts(
            "groq", thinking_budget=False, thinking="`reasoning_effort` (reasoning models)"
        ),
        ProviderFacts("mistral", several_choices=True),
        ProviderFacts("together_ai", several_choices=True),
        ProviderFacts("hosted_vllm", several_choices=True),
        ProviderFacts("openrouter", thinking="`reasoning` (passed through)"),
        ProviderFacts("simulated", thinking="recorded, offline", several_choices=True),
        replace(PROMPTED, name="replicate"),
        PROMPTED,
        replace(PROMPTED, name="cohere_chat"),
    )
}
DEFAULT = ProviderFacts("openai-compatible")
NAME_HINTS = (("claude", "anthropic"), ("gemini", "gemini"), ("gpt", "openai"), ("o1", "openai"))

# Texts that mean "the provider is overloaded" whatever the status code litellm reports
# (Anthropic 529 `overloaded_error`; Gemini 503 `UNAVAILABLE` "The model is overloaded").
OVERLOAD_STATUS = frozenset({529})
OVERLOAD_TEXT = re.compile(
    r"overloaded_error|\boverloaded\b|\"UNAVAILABLE\"|server busy", re.IGNORECASE
)
# Gemini / Vertex put their wait in the error body: {"@type": "...RetryInfo", "retryDelay": "3s"}
RETRY_DELAY = re.compile(r"[\"']retryDelay[\"']\s*:\s*[\"'](\d+(?:\.\d+)?)s[\"']")
# A refusal of the request's reply format (a 4xx/5xx naming it): llama-cpp-python's 500 "Input
# should be 'text' or 'json_object'" at `response_format.type`, llama.cpp's "response_format type
# must be one of ...", litellm's UnsupportedParamsError naming `response_format`, Ollama's
# "invalid JSON schema in format" / "invalid format: ...".
FORMAT_REFUSAL = re.compile(
    r"response_format|json_schema|JSON schema in format|invalid format\b|ChatRequest\.format",
    re.IGNORECASE,
)
# litellm bugs that make a good reply fail on our side: retrying cannot help.
LITELLM_READ_BUGS = (re.compile(r"has no attribute 'service_tier'"),)


def provider_name(model: str) -> str:
    """The provider litellm routes `model` to: its prefix, else a guess from the name."""
    prefix, _, rest = model.partition("/")
    if rest and prefix:
        return prefix
    for hint, name in NAME_HINTS:
        if model.startswith(hint):
            return name
    return "openai"


def facts_for(model: str) -> ProviderFacts:
    return PROVIDERS.get(provider_name(model), DEFAULT)


def thinking_on(spec: JudgeSpec) -> bool:
    return spec.thinking is not None and str(spec.thinking).strip().lower() not in ("", "none")


def only_temperature_one(model: str) -> bool:
    name = "/" + model.lower()
    return any(marker in name for marker in facts_for(model).temperature_one_models)


def reasoning_fixes_temperature(spec: JudgeSpec) -> bool:
    """A gpt-5 reasoning model (not gpt-5-chat) whose reasoning is not turned off."""
    name = "/" + spec.model.lower()
    markers = facts_for(spec.model).reasoning_temperature_models
    reasoning = spec.thinking is None or str(spec.thinking).strip().lower() != "none"
    return reasoning and "gpt-5-chat" not in name and any(m in name for m in markers)


def temperature_refused(spec: JudgeSpec) -> bool:
    """True when the provider certainly refuses any temperature but 1 for this judge."""
    facts = facts_for(spec.model)
    return only_temperature_one(spec.model) or (
        facts.thinking_fixes_temperature and thinking_on(spec)
    )


def temperature_fixed(spec: JudgeSpec) -> bool:
    """True when no temperature but 1 is sent: the refused cases, and gpt-5 reasoning models
    (they take another only when their effective effort is "none", which we cannot know)."""
    return temperature_refused(spec) or reasoning_fixes_temperature(spec)


def sent_temperature(spec: JudgeSpec) -> float | None:
    """The temperature sent to the provider; None: none is sent (the provider's default).

    Where only 1 is accepted, a configured temperature other than 1 is the default one (an
    explicit one is refused by `preflight`), so none is sent: the provider's own default is 1.
    """
    if spec.temperature is not None and temperature_fixed(spec) and spec.temperature != 1:
        return None
    return spec.temperature


def thinking_display(spec: JudgeSpec) -> dict[str, str]:
    """`display: summarized` for a thinking budget sent to an adaptive-thinking model."""
    markers = facts_for(spec.model).summarized_thinking_models
    name = "/" + spec.model.lower()
    if thinking_budget(spec) is not None and any(m in name for m in markers):
        return {"display": "summarized"}
    return {}


REASK_CEILING = 1.0
"""A re-ask's raised temperature never goes above this (nor below the judge's own)."""


def attempt_temperature(spec: JudgeSpec, reasks: int = 0) -> float | None:
    """The temperature an attempt sends after `reasks` unusable replies to its request: the
    judge's (`sent_temperature`) raised by `reask_temperature_step` per unusable reply, up to
    `REASK_CEILING`; never raised where none is sent or where only 1 is accepted."""
    base = sent_temperature(spec)
    if base is None or reasks == 0 or temperature_fixed(spec):
        return base
    raised = min(base + reasks * spec.reask_temperature_step, REASK_CEILING)
    return round(max(base, raised), 6)


def dialects(spec: JudgeSpec) -> tuple[Dialect, ...]:
    """The dialects a judge may use, in order: its provider's under `auto`, else the one set."""
    if spec.structured_output == "auto":
        return facts_for(spec.model).dialects
    return (spec.structured_output,)


def sent_params(judges: list[JudgeSpec]) -> dict[str, dict[str, Any]]:
    """Per judge, what is sent that may differ from the configuration (the manifest keeps it):
    the temperature, and the structured-output dialect (at the start of a session; the one
    in use at its end once it finishes)."""
    return {
        j.judge_id: {"temperature": sent_temperature(j), "structured_output": dialects(j)[0]}
        for j in judges
    }


def thinking_budget(spec: JudgeSpec) -> int | None:
    thinking = spec.thinking
    if isinstance(thinking, int):
        return thinking
    if isinstance(thinking, str) and thinking.strip().isdigit():
        return int(thinking)
    return None


# -- preflight ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One finding about a judge: `key` is its path in the rubric (`grader.judges.0.thinking`)."""

    severity: Literal["error", "warning"]
    key: tuple[str | int, ...]
    message: str


def priced(model: str) -> bool:
    """Whether litellm's bundled cost map (price_table.py) prices `model` (as written or without
    its prefix)."""
    costs = price_table()
    return any(name in costs for name in (model, model.partition("/")[2]) if name)


def preflight(judges: list[JudgeSpec], *, explicit: bool = True) -> list[Problem]:
    """Problems with these judges, errors first. `explicit`: the specs come straight from the
    rubric, so `temperature` counts as set only when the user wrote it (pydantic fields_set)."""
    problems: list[Problem] = []
    for index, spec in enumerate(judges):
        key: tuple[str | int, ...] = ("grader", "judges", index)
        problems += _judge_problems(spec, key, explicit)
    return sorted(problems, key=lambda p: p.severity != "error")


def _judge_problems(spec: JudgeSpec, key: tuple[str | int, ...], explicit: bool) -> list[Problem]:
    facts = facts_for(spec.model)
    written = "temperature" in spec.model_fields_set or not explicit
    budget = thinking_budget(spec)
    found: list[tuple[Literal["error", "warning"], str, str]] = []
    if written and spec.temperature not in (None, 1) and temperature_refused(spec):
        why = (
            f"{spec.model} accepts temperature 1 only"
            if only_temperature_one(spec.model)
            else f"{facts.name} refuses a temperature other than 1 when thinking is on"
        )
        found.append(("error", "temperature", f"{why}; remove `temperature` or set it to 1"))
    if budget is not None and facts.thinking_budget is False:
        why = f"{facts.name} takes a thinking effort (low, medium or high), not a token budget"
        refused = "litellm refuses `thinking` with a number for it"
        found.append(("error", "thinking", f"{why}; {refused}"))
    if budget is not None and spec.max_tokens is not None and budget >= spec.max_tokens:
        why = f"a thinking budget of {budget} tokens must be below max_tokens ({spec.max_tokens})"
        fix = "Raise max_tokens or lower the budget"
        found.append(("error", "thinking", f"{why}; the provider refuses it. {fix}"))
    if facts.name != "simulated" and not priced(spec.model):
        why = f"litellm has no price for {spec.model}"
        found.append(("warning", "model", f"{why}: its cost will be recorded as null"))
    if spec.sample_request == "one" and not facts.several_choices:
        why = f"{facts.name} returns one choice per request, so each sample is a request"
        found.append(("error", "sample_request", f"{why}; remove sample_request: one"))
    set_dialect = spec.structured_output
    if set_dialect != "auto" and set_dialect not in facts.dialects:
        takes = ", ".join(facts.dialects)
        why = f"{facts.name} takes structured_output {takes}, not {set_dialect}"
        found.append(("error", "structured_output", f"{why}; set one of them or auto"))
    elif dialects(spec) == ("prompt",) and set_dialect == "auto":
        why = f"{facts.name} takes no JSON schema: the reply shape is asked for in the prompt only"
        found.append(("warning", "model", f"{why}, and unusable replies are re-asked"))
    return [Problem(severity, (*key, field), message) for severity, field, message in found]
