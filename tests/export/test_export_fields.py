"""The pure mappings of docs/guides/tracing.md: span attributes and MLflow metrics."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.export.genai import (
    call_attributes,
    completion_attributes,
    error_type,
    model_name,
    output_messages,
    server_attributes,
)
from autorubric_cli.export.mlflow_fields import metric_key, metrics
from autorubric_cli.export.otel import reason
from autorubric_cli.judges.per_item.asked import AskedCriterion
from autorubric_cli.judges.per_item.request import ItemRequest
from autorubric_cli.judges.policy.failures import JudgeAuthError, JudgeFailure
from autorubric_cli.judges.request import Completion, VoteRequest

CRITERION = Criterion(name="correct", requirement="The answer is correct")


def vote(sample: int = 0) -> VoteRequest:
    return VoteRequest("it1", CRITERION, sample, [{"role": "user", "content": "hi"}])


@pytest.mark.parametrize(
    ("model", "name"),
    [
        ("openai/gpt-4o-mini", "gpt-4o-mini"),
        ("gpt-4o", "gpt-4o"),
        ("bedrock/anthropic.claude-3-haiku", "anthropic.claude-3-haiku"),
        ("hosted_vllm/org/model-7b", "org/model-7b"),
    ],
)
def test_the_request_model_has_no_litellm_prefix(model: str, name: str) -> None:
    assert model_name(model) == name


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ("gemini/gemini-2.0-flash", "gcp.gemini"),
        ("bedrock/anthropic.claude-3-haiku", "aws.bedrock"),
        ("azure/my-deployment", "azure.ai.openai"),
        ("anthropic/claude-3-5-haiku", "anthropic"),
        ("claude-3-5-haiku", "anthropic"),
        ("ollama/llama3", "ollama"),
    ],
)
def test_provider_names_follow_the_conventions(model: str, provider: str) -> None:
    attributes = call_attributes(JudgeSpec(model=model), vote(), 1)
    assert attributes["gen_ai.provider.name"] == provider


def test_a_per_criterion_and_a_per_item_call() -> None:
    spec = JudgeSpec(model="openai/gpt-4o", id="strict", max_tokens=300, temperature=0.2)
    one = call_attributes(spec, vote(sample=2), 3)
    assert one["autorubric.criterion"] == "correct" and "autorubric.criteria" not in one
    assert (one["autorubric.sample"], one["autorubric.attempt"]) == (2, 3)
    assert one["autorubric.judge.id"] == "strict"
    assert (one["gen_ai.request.max_tokens"], one["gen_ai.request.temperature"]) == (300, 0.2)
    other = Criterion(name="clear", requirement="It is clear")
    asked = [AskedCriterion(CRITERION), AskedCriterion(other)]
    many = call_attributes(spec, ItemRequest("it1", 0, asked, []), 1)
    assert many["autorubric.criteria"] == ["correct", "clear"]
    assert "autorubric.criterion" not in many
    assert "autorubric.samples" not in one and "gen_ai.request.choice.count" not in one


def test_a_call_for_several_samples_names_them() -> None:
    spec = JudgeSpec(model="openai/gpt-4o", samples=3)
    together = call_attributes(spec, replace(vote(sample=1), samples=(1, 2)), 2)
    assert together["autorubric.samples"] == [1, 2]
    assert together["gen_ai.request.choice.count"] == 2
    assert together["autorubric.sample"] == 1


def test_no_temperature_when_none_is_sent() -> None:
    spec = JudgeSpec(model="anthropic/claude-sonnet-4-5", thinking=2048)  # thinking: none sent
    assert "gen_ai.request.temperature" not in call_attributes(spec, vote(), 1)
    assert "gen_ai.request.max_tokens" not in call_attributes(spec, vote(), 1)


def test_the_server_is_host_and_port_only() -> None:
    found = server_attributes("https://user:s3cret-token@llm.example.com:8443/v1?key=abc")
    assert found == {"server.address": "llm.example.com", "server.port": 8443}
    assert server_attributes(None) == {}
    assert server_attributes("http://[bad") == {}


def test_error_type_is_the_failure_kind_or_the_class() -> None:
    assert error_type(JudgeFailure("rate_limit", "slow down")) == "rate_limit"
    assert error_type(JudgeAuthError("no")) == "auth"
    assert error_type(TimeoutError()) == "TimeoutError"


def test_a_cache_hit_has_no_usage_and_costs_nothing() -> None:
    usage = {"prompt_tokens": 10, "completion_tokens": 2}
    paid = completion_attributes(Completion("{}", usage=usage, cost=0.5, model="gpt-4o-2024"))
    assert paid["gen_ai.usage.input_tokens"] == 10 and paid["gen_ai.usage.output_tokens"] == 2
    assert paid["autorubric.cost_usd"] == 0.5 and paid["autorubric.cache_hit"] is False
    assert paid["gen_ai.response.model"] == "gpt-4o-2024"
    hit = completion_attributes(Completion("{}", usage=usage, cost=0.5, cached=True))
    assert hit == {"autorubric.cache_hit": True, "autorubric.cost_usd": 0.0}
    unpriced = completion_attributes(Completion("{}", usage=usage, cost=None))
    assert "autorubric.cost_usd" not in unpriced


def test_output_messages_carry_the_reasoning_first() -> None:
    (message,) = json.loads(output_messages(Completion('{"a": 1}', reasoning="because")))
    assert message["parts"] == [
        {"type": "reasoning", "content": "because"},
        {"type": "text", "content": '{"a": 1}'},
    ]


def test_metrics_keep_numbers_only_and_name_criteria() -> None:
    report = {
        "score": {"n": 4, "mean": 0.5, "std": 0.2, "median": None, "ci95": [0.1, 0.9]},
        "criteria": [{"name": "tone: polite?", "met_rate": 0.75, "mean_value": float("nan")}],
        "agreement": {
            "mean_agreement": 0.8,
            "criteria": [{"name": "tone: polite?", "krippendorff_alpha": 0.6, "fleiss_kappa": 0.7}],
        },
        "ground_truth": None,
        "cost": None,
        "usage": {"prompt_tokens": 100},
        "simulated": True,
    }
    found = metrics(report)
    assert found == {
        "score.n": 4.0,
        "score.mean": 0.5,
        "score.std": 0.2,
        "score.se": pytest.approx(0.2 / math.sqrt(4)),
        "criterion.tone_ polite_.met_rate": 0.75,
        "agreement.mean_agreement": 0.8,
        "agreement.tone_ polite_.krippendorff_alpha": 0.6,  # the headline figure only
        "tokens.prompt_tokens": 100.0,
    }
    assert metric_key("judge", "a|b") == "judge.a_b"


def test_the_warning_gives_the_short_reason() -> None:
    refused = (
        "Transient error HTTPConnectionPool(host='127.0.0.1', port=9): Max retries exceeded with "
        "url: /v1/traces (Caused by NewConnectionError(\"HTTPConnection(host='127.0.0.1', "
        'port=9): Failed to establish a new connection: [Errno 111] Connection refused"))'
    )
    assert reason(refused) == "Connection refused"
    status = "Failed to export span batch code: 401, reason: Unauthorized"
    assert reason(status) == status
    assert len(reason("x " * 500)) == 160
