"""How a user points a judge at each provider fake: model, api_base, key, params (the
conformance matrix's rows, tests/judges/test_provider_conformance.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.support.providers.anthropic import AnthropicFake
from tests.support.providers.azure import AzureFake
from tests.support.providers.base import FakeProvider
from tests.support.providers.bedrock import BedrockFake
from tests.support.providers.gemini import GeminiFake
from tests.support.providers.ollama import OllamaFake
from tests.support.providers.openai import OpenAIFake

KEY_ENV = "AUTORUBRIC_PROVIDER_KEY"


@dataclass(frozen=True)
class Provider:
    """How a user points a judge at this provider (model, api_base, key, params)."""

    name: str
    fake: type[FakeProvider]
    model: str
    thinking: str | int
    overload: str  # the error category an overload answer becomes
    has_hint: bool = True  # the provider's 429 carries a retry hint
    priced: bool = True
    thinking_model: str | None = None
    thinking_max_tokens: int | None = None
    params: Callable[[str], dict[str, Any]] = field(default=lambda base: {})
    uses_api_base: bool = True
    uses_key: bool = True
    several_choices: bool = False  # one request returns several choices (`n`, candidateCount)
    extra: dict[str, Any] = field(default_factory=dict)  # more judge keys (`transport`, ...)

    def judge_yaml(self, api_base: str, *, thinking: bool, samples: int) -> str:
        model = (self.thinking_model or self.model) if thinking else self.model
        spec: dict[str, Any] = {"model": model, "id": "j", "samples": samples, **self.extra}
        if self.uses_api_base:
            spec["api_base"] = api_base
        if self.uses_key:
            spec["api_key_env"] = KEY_ENV
        params = self.params(api_base)
        if params:
            spec["params"] = params
        if thinking:
            spec["thinking"] = self.thinking
            if self.thinking_max_tokens:
                spec["max_tokens"] = self.thinking_max_tokens
        return json.dumps(spec)


def bedrock_params(api_base: str) -> dict[str, Any]:
    return {
        "aws_bedrock_runtime_endpoint": api_base,
        "aws_access_key_id": "AKIDUMMYDUMMYDUMMY",
        "aws_secret_access_key": "dummy-secret",
        "aws_region_name": "us-east-1",
    }


PROVIDERS = [
    Provider("anthropic", AnthropicFake, "anthropic/claude-sonnet-4-5", 2048, "overloaded"),
    Provider(
        "gemini", GeminiFake, "gemini/gemini-2.5-flash", "low", "overloaded", several_choices=True
    ),
    Provider(
        "azure",
        AzureFake,
        "azure/gpt-4o",
        "low",
        "server",
        thinking_model="azure/o4-mini",
        params=lambda base: {"api_version": "2024-10-21"},
        several_choices=True,
    ),
    Provider(
        "ollama",
        OllamaFake,
        "ollama_chat/qwen3",
        "low",
        "overloaded",
        has_hint=True,
        priced=False,
        uses_key=False,
    ),
    Provider(
        "bedrock",
        BedrockFake,
        "bedrock/anthropic.claude-3-7-sonnet-20250219-v1:0",
        2048,
        "server",
        has_hint=False,
        thinking_max_tokens=4096,
        params=bedrock_params,
        uses_api_base=False,
        uses_key=False,
    ),
]

# OpenAI itself (through litellm's OpenAI handler) and an OpenAI-compatible server (vLLM,
# llama.cpp; through the native transport): the rows of the several-samples cases
# (tests/judges/test_samples_conformance.py), which the OpenAI loopback server covers elsewhere
OPENAI_ROWS = [
    Provider(
        "openai",
        OpenAIFake,
        "openai/gpt-4.1-mini",
        "low",
        "overloaded",
        several_choices=True,
        extra={"transport": "litellm"},
    ),
    Provider(
        "openai_compatible",
        OpenAIFake,
        "hosted_vllm/qwen3-8b",
        "low",
        "overloaded",
        priced=False,
        several_choices=True,
    ),
]
