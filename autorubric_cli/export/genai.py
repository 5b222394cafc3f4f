"""The attributes of the three spans, following the OpenTelemetry GenAI semantic conventions
where they have a name, `autorubric.*` where they do not (docs/guides/tracing.md).

Pure: no OpenTelemetry import, so the mapping is tested without an SDK. No attribute holds a
key: a judge carries only the NAME of its key variable, and that is not recorded either.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

import orjson

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.errors import AutorubricError
from autorubric_cli.judges.per_item.request import ItemRequest
from autorubric_cli.judges.policy.failures import redact
from autorubric_cli.judges.policy.providers import provider_name, sent_temperature
from autorubric_cli.judges.request import CallRequest, Completion, VoteRequest

Attributes = dict[str, Any]
CAPTURE_CONTENT = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

# litellm's provider prefixes whose well-known `gen_ai.provider.name` differs from the prefix
PROVIDER_NAMES = {
    "azure": "azure.ai.openai",
    "azure_ai": "azure.ai.inference",
    "bedrock": "aws.bedrock",
    "gemini": "gcp.gemini",
    "vertex_ai": "gcp.vertex_ai",
    "mistral": "mistral_ai",
    "cohere_chat": "cohere",
    "watsonx": "ibm.watsonx.ai",
    "xai": "x_ai",
}


def capture_content() -> bool:
    return os.environ.get(CAPTURE_CONTENT, "").strip().lower() == "true"


def model_name(model: str) -> str:
    """The model without litellm's provider prefix (`openai/gpt-4o` -> `gpt-4o`)."""
    prefix, _, rest = model.partition("/")
    return rest if rest and prefix else model


def call_name(spec: JudgeSpec) -> str:
    return f"chat {model_name(spec.model)}"


def call_attributes(spec: JudgeSpec, request: CallRequest, attempt: int) -> Attributes:
    """What is known before the call: the request side and ours."""
    provider = provider_name(spec.model)
    attributes: Attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": PROVIDER_NAMES.get(provider, provider),
        "gen_ai.request.model": model_name(spec.model),
        "autorubric.judge.id": spec.judge_id,
        "autorubric.item.id": request.item_id,
        "autorubric.sample": request.sample,
        "autorubric.attempt": attempt,
    }
    temperature = sent_temperature(spec)
    if temperature is not None:
        attributes["gen_ai.request.temperature"] = temperature
    if spec.max_tokens is not None:
        attributes["gen_ai.request.max_tokens"] = spec.max_tokens
    if isinstance(request, ItemRequest):
        attributes["autorubric.criteria"] = [asked.name for asked in request.asked]
    else:
        attributes["autorubric.criterion"] = request.criterion.name
    if isinstance(request, VoteRequest) and request.samples:  # several samples: a choice each
        attributes["autorubric.samples"] = list(request.samples)
        attributes["gen_ai.request.choice.count"] = len(request.samples)
    attributes.update(server_attributes(spec.api_base))
    return attributes


def server_attributes(api_base: str | None) -> Attributes:
    """`server.address`/`server.port` of an explicit endpoint: host and port only, never the
    rest of the URL (a user name or a token in it stays out)."""
    if not api_base:
        return {}
    try:
        parts = urlsplit(api_base)
        host, port = parts.hostname, parts.port
    except ValueError:
        return {}
    found: Attributes = {} if host is None else {"server.address": host}
    if port is not None:
        found["server.port"] = port
    return found


def completion_attributes(completion: Completion) -> Attributes:
    """What the reply brings. A call-cache hit sent nothing: no usage, nothing paid."""
    attributes: Attributes = {"autorubric.cache_hit": completion.cached}
    if completion.model:
        attributes["gen_ai.response.model"] = completion.model
    if completion.cached:
        attributes["autorubric.cost_usd"] = 0.0
        return attributes
    usage = completion.usage
    if "prompt_tokens" in usage:
        attributes["gen_ai.usage.input_tokens"] = usage["prompt_tokens"]
    if "completion_tokens" in usage:
        attributes["gen_ai.usage.output_tokens"] = usage["completion_tokens"]
    if completion.cost is not None:
        attributes["autorubric.cost_usd"] = completion.cost
    return attributes


def input_messages(messages: list[dict[str, str]]) -> str:
    """`gen_ai.input.messages`: the conventions' JSON shape (role and text parts)."""
    shaped = [
        {"role": m.get("role", "user"), "parts": [{"type": "text", "content": m.get("content")}]}
        for m in messages
    ]
    return orjson.dumps(shaped).decode()


def output_messages(completion: Completion) -> str:
    """`gen_ai.output.messages`: the reply (and its reasoning, when the judge returned one)."""
    parts: list[dict[str, Any]] = []
    if completion.reasoning:
        parts.append({"type": "reasoning", "content": completion.reasoning})
    parts.append({"type": "text", "content": completion.content})
    shaped = [{"role": "assistant", "parts": parts, "finish_reason": "stop"}]
    return orjson.dumps(shaped).decode()


def error_type(exc: BaseException) -> str:
    """`error.type`: the failure's kind (`rate_limit`, `server_error`, `timeout`, ...), else
    the exception's class name, as the conventions ask: low cardinality, no message."""
    category = getattr(exc, "category", None)
    return str(category) if category is not None else type(exc).__name__


def error_text(exc: BaseException) -> str:
    """The error's text for a span's status and `exception` event: our own errors' message
    (the error vote's text, keys already redacted, redacted again), else the exception's class
    name alone: a foreign exception's message could hold a prompt or a reply."""
    if isinstance(exc, AutorubricError):
        return redact(str(exc), None)
    return type(exc).__name__


def exception_attributes(exc: BaseException) -> Attributes:
    """The conventions' `exception` event: the type's fully qualified name and the message
    (no `exception.stacktrace`: source lines are not the error's text)."""
    kind = type(exc)
    return {
        "exception.type": f"{kind.__module__}.{kind.__qualname__}",
        "exception.message": error_text(exc),
    }


def item_attributes(record: ItemRecord) -> Attributes:
    attributes: Attributes = {"autorubric.item.status": record.status}
    if record.score is not None:
        attributes["autorubric.item.score"] = record.score
    return attributes
