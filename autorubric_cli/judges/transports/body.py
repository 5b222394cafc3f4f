"""The provider request of one call, built once for every way it is sent.

`call_body` is what `litellm.acompletion` is given (transports/litellm.py adds the key, timeout
and retry switches); `wire_body` is that body as an OpenAI-compatible endpoint receives it, the
one the native transport POSTs (transports/native.py) and an OpenAI batch line carries
(batch/lines.py). The call's structured-output dialect decides how the body asks for the reply
schema (`reply_format`), its re-asks the temperature (`providers.attempt_temperature`).
"""

from __future__ import annotations

from typing import Any

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.policy.providers import (
    Dialect,
    attempt_temperature,
    thinking_display,
)
from autorubric_cli.judges.request import Call

# the order litellm 1.106.2 writes OpenAI chat parameters in (DEFAULT_CHAT_COMPLETION_PARAM_VALUES)
OPENAI_ORDER = (
    *("temperature", "top_p", "n", "stream_options", "stop", "max_tokens"),
    *("max_completion_tokens", "modalities", "prediction", "audio", "presence_penalty"),
    *("frequency_penalty", "logit_bias", "response_format", "seed", "tools", "tool_choice"),
    *("logprobs", "top_logprobs", "parallel_tool_calls", "reasoning_effort", "verbosity"),
    *("web_search_options", "safety_identifier", "prompt_cache_key", "prompt_cache_retention"),
    "store",
)


def thinking_kwargs(thinking: str | int | None) -> dict[str, Any]:
    """An effort level becomes `reasoning_effort`; a token budget becomes `thinking`."""
    if thinking is None:
        return {}
    if isinstance(thinking, int) or thinking.strip().isdigit():
        return {"thinking": {"type": "enabled", "budget_tokens": int(thinking)}}
    return {"reasoning_effort": thinking}


def reply_format(dialect: Dialect, response_format: dict[str, Any]) -> dict[str, Any] | None:
    """The `response_format` a body carries for the reply schema (OpenAI's json_schema form):

    - `json_schema`: as it is (litellm maps it to each provider's own form);
    - `json_object`: `{"type": "json_object", "schema": <the schema>}`, as llama.cpp's servers
      take a schema (litellm sends Ollama `format: "json"` for it);
    - `prompt`: none; the prompt states the reply's shape.
    """
    if dialect == "json_schema":
        return response_format
    if dialect == "json_object":
        return {"type": "json_object", "schema": response_format["json_schema"]["schema"]}
    return None


def call_body(
    spec: JudgeSpec, model: str, call: Call, messages: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """`model` as the receiver names it, the messages (`call.messages` unless given: the
    transport's cache-marked copy), `n` when the call asks for several choices (one per
    sample), the reply schema in the call's dialect, the temperature of
    the attempt (`providers.attempt_temperature`), max tokens, thinking, then the judge's
    `params` as they are (pass-through: top_p, seed, extra_headers, extra_body, ...; keys
    checked)."""
    sent = call.messages if messages is None else messages
    body: dict[str, Any] = {"model": model, "messages": sent}
    if call.choices > 1:  # one choice per sample asked (litellm sends Gemini candidateCount)
        body["n"] = call.choices
    schema = reply_format(call.dialect, call.response_format)
    if schema is not None:
        body["response_format"] = schema
    temperature = attempt_temperature(spec, call.reasks)
    if temperature is not None:
        body["temperature"] = temperature
    if spec.max_tokens is not None:
        body["max_tokens"] = spec.max_tokens
    body.update(thinking_kwargs(spec.thinking))
    if "thinking" in body:
        body["thinking"] = {**body["thinking"], **thinking_display(spec)}
    body.update(spec.params)
    return body


def wire_body(spec: JudgeSpec, model: str, call: Call) -> tuple[dict[str, Any], dict[str, str]]:
    """(JSON body, extra headers) of `call_body` as litellm sends it to an OpenAI-compatible
    endpoint, keys in litellm's order: model, messages, the parameters in `OPENAI_ORDER`, any
    other as given, then `extra_body` merged in; `extra_headers` become headers."""
    given = call_body(spec, model, call)
    headers = {str(k): str(v) for k, v in (given.pop("extra_headers", None) or {}).items()}
    extra_body = given.pop("extra_body", None) or {}
    body = {"model": given.pop("model"), "messages": given.pop("messages")}
    body.update((key, given.pop(key)) for key in OPENAI_ORDER if key in given)
    body.update(given)
    body.update(extra_body)
    return body, headers
