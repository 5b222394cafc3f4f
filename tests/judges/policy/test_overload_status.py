"""A provider's overload keeps the status it sent and is named `overloaded`: Anthropic's 529
`overloaded_error` and Gemini's 503 `UNAVAILABLE`, over a direct call (litellm, which
re-labels both as 500) and in a provider batch's results (docs/design/failures.md)."""

from __future__ import annotations

import pytest

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.batch import anthropic as anthropic_batch
from autorubric_cli.judges.batch import gemini as gemini_batch
from autorubric_cli.judges.policy.failures import JudgeFailure
from autorubric_cli.judges.policy.retry import RetryPolicy
from autorubric_cli.judges.replies import shared_response_format
from autorubric_cli.judges.request import Call
from autorubric_cli.judges.transports.litellm import LiteLLMTransport
from tests.support.anthropic_batches import error_body
from tests.support.providers.anthropic import AnthropicFake
from tests.support.providers.base import FakeProvider
from tests.support.providers.gemini import GeminiFake

KEY_ENV = "AUTORUBRIC_OVERLOAD_TEST_KEY"
MESSAGES = [{"role": "system", "content": "Judge it."}, {"role": "user", "content": "Is it?"}]
CLAUDE = "anthropic/claude-sonnet-4-5"
GEMINI = "gemini/gemini-2.5-flash"


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "test-key-0123456789")


def assert_overloaded(failure: JudgeFailure, status: int) -> None:
    assert failure.category == "overloaded"
    assert failure.detail.startswith(f"HTTP {status}: the provider is overloaded")
    assert failure.retryable and failure.category.slows_down


@pytest.mark.parametrize(
    ("fake_class", "model", "status"), [(AnthropicFake, CLAUDE, 529), (GeminiFake, GEMINI, 503)]
)
async def test_a_direct_calls_overload_keeps_the_providers_status(
    fake_class: type[FakeProvider], model: str, status: int
) -> None:
    with fake_class() as fake:
        fake.script("overloaded")
        spec = JudgeSpec(model=model, api_base=fake.api_base, api_key_env=KEY_ENV)
        transport = LiteLLMTransport(spec, 5.0)
        with pytest.raises(JudgeFailure) as caught:
            await transport.complete(Call(MESSAGES, shared_response_format(), None))  # type: ignore[arg-type]
        assert [seen.status for seen in fake.requests] == [status]  # what the provider sent
    assert_overloaded(caught.value, status)


async def test_an_anthropic_batch_results_overload_is_529() -> None:
    spec = JudgeSpec(model=CLAUDE, api_key_env=KEY_ENV)
    api = anthropic_batch.AnthropicBatches(spec, "claude-sonnet-4-5", 5.0, RetryPolicy(), 1)
    line = {
        "custom_id": "k",
        "result": {"type": "errored", "error": error_body("overloaded_error", "Overloaded")},
    }
    reply = anthropic_batch.result_of("b1", line)
    with pytest.raises(JudgeFailure) as caught:
        await api.answered(reply, Call(MESSAGES, shared_response_format(), None))  # type: ignore[arg-type]
    assert_overloaded(caught.value, 529)


async def test_a_gemini_batch_results_unavailable_is_503() -> None:
    spec = JudgeSpec(model=GEMINI, api_key_env=KEY_ENV)
    api = gemini_batch.GeminiBatches(spec, "gemini-2.5-flash", 5.0, RetryPolicy(), 1)
    unavailable = {"code": 14, "message": "The model is overloaded. Please try again later."}
    reply = gemini_batch.result_of({"error": unavailable})
    with pytest.raises(JudgeFailure) as caught:
        await api.answered(reply, Call(MESSAGES, shared_response_format(), None))  # type: ignore[arg-type]
    assert_overloaded(caught.value, 503)
