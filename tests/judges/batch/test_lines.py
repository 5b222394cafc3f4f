"""Batch file format, provider check and batch price (docs/guides/batches.md)."""

from __future__ import annotations

import orjson
import pytest

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.errors import InputError
from autorubric_cli.judges.batch.api import batch_price, batch_provider
from autorubric_cli.judges.batch.lines import (
    BatchPrice,
    batch_line,
    parse_results,
)
from autorubric_cli.judges.policy.failures import JudgeAuthError, JudgeFailure
from autorubric_cli.judges.request import Call, Completion
from autorubric_cli.judges.transports.body import wire_body

MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
FORMAT = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}


def test_request_body_is_the_chat_body_with_params_merged() -> None:
    spec = JudgeSpec(
        model="openai/gpt-4.1-mini",
        temperature=0.3,
        max_tokens=50,
        thinking="low",
        params={"top_p": 0.9, "extra_body": {"service_tier": "flex"}},
    )
    body, _ = wire_body(spec, "gpt-4.1-mini", Call(MESSAGES, FORMAT, None))  # type: ignore[arg-type]
    assert body == {
        "model": "gpt-4.1-mini",
        "messages": MESSAGES,
        "response_format": FORMAT,
        "temperature": 0.3,
        "max_tokens": 50,
        "reasoning_effort": "low",
        "top_p": 0.9,
        "service_tier": "flex",
    }
    line = orjson.loads(batch_line("k" * 64, body))
    assert line == {
        "custom_id": "k" * 64,
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": body,
    }
    assert batch_line("a", body).endswith(b"\n") and batch_line("a", body).count(b"\n") == 1


def ok_line(
    custom_id: str, content: str, prompt: int = 10, completion: int = 3, finish: str = "stop"
) -> dict:
    message = {"content": content, "reasoning_content": "think"}
    return {
        "id": "r",
        "custom_id": custom_id,
        "response": {
            "status_code": 200,
            "body": {
                "choices": [{"message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": completion},
            },
        },
        "error": None,
    }


def error_line(custom_id: str, status: int, message: str) -> dict:
    body = {"error": {"message": message}}
    return {"custom_id": custom_id, "response": {"status_code": status, "body": body}}


def test_parse_results_answers_failures_and_garbage() -> None:
    lines = [
        ok_line("a", '{"x": 1}', 1000, 200),
        error_line("b", 429, "slow down"),
        error_line("c", 400, "bad request"),
        error_line("d", 500, "boom"),
        {"custom_id": "e", "response": None, "error": {"code": "batch_expired", "message": "m"}},
        error_line("f", 401, "Incorrect API key provided: sk-secret-0123456789abcdef"),
        ok_line("g", '{"x": ', finish="length"),
        error_line("h", 400, "response_format json_schema is not supported by this server"),
    ]
    content = b"\n".join(orjson.dumps(line) for line in lines) + b"\nnot json\n{}\n"
    price = BatchPrice(prompt=2e-7, completion=8e-7)
    results = parse_results(content, price, "j0", "sk-secret-0123456789abcdef")
    assert set(results) == set("abcdefgh")
    answer = results["a"]
    assert isinstance(answer, Completion)
    assert answer.content == '{"x": 1}' and answer.reasoning == "think"
    assert answer.usage == {"prompt_tokens": 1000, "completion_tokens": 200}
    assert answer.cost == pytest.approx(1000 * 2e-7 + 200 * 8e-7)
    assert answer.truncated is False
    cut = results["g"]
    assert isinstance(cut, Completion) and cut.truncated is True
    kinds = {}
    for key in "bcdeh":
        failure = results[key]
        assert isinstance(failure, JudgeFailure)
        kinds[key] = (failure.category, failure.retryable)
    assert kinds == {
        "b": ("rate_limit", True),
        "c": ("request", False),
        "d": ("server", True),
        "e": ("batch", True),
        "h": ("format", False),  # a refused reply format: the judge switches dialect
    }
    assert "batch_expired" in str(results["e"])
    assert isinstance(results["f"], JudgeAuthError)
    assert "sk-secret" not in str(results["f"])


def test_unpriced_model_has_no_cost() -> None:
    content = orjson.dumps(ok_line("a", "{}"))
    answer = parse_results(content, None, "j0", None)["a"]
    assert isinstance(answer, Completion) and answer.cost is None


def test_batch_price_from_litellm() -> None:
    price = batch_price("gpt-4.1-mini", "openai")
    assert price == BatchPrice(prompt=2e-7, completion=8e-7)  # litellm's *_batches rates
    assert batch_price("no-such-model-xyz", "openai") is None


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ("openai/judge", "openai"),
        ("gpt-4.1-mini", "openai"),
        ("azure/deploy", "azure"),
        ("anthropic/claude-sonnet-4-5", "anthropic"),
        ("gemini/gemini-2.5-flash", "gemini"),
    ],
)
def test_batchable_providers(model: str, provider: str) -> None:
    assert batch_provider(JudgeSpec(model=model))[0] == provider


@pytest.mark.parametrize(
    ("model", "named"),
    [
        ("ollama/llama3", "provider `ollama`"),
        ("mistral/mistral-small-latest", "provider `mistral`"),
        ("simulated/a", "provider `simulated`"),
    ],
)
def test_unbatchable_provider_is_an_input_error(model: str, named: str) -> None:
    with pytest.raises(InputError) as caught:
        batch_provider(JudgeSpec(model=model, id="j"))
    assert named in str(caught.value)
    assert "'j'" in str(caught.value) and "grader.batch" in caught.value.one_line()


def test_extra_headers_cannot_be_batched() -> None:
    with pytest.raises(InputError, match="extra_headers"):
        batch_provider(JudgeSpec(model="openai/x", params={"extra_headers": {"a": "b"}}))
