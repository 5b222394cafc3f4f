"""Provider facts (judges/policy/providers.py): preflight refusals and warnings located in the
rubric,
the temperature sent, provider failures classified (overload, body retry hints, litellm's Groq
bug), the re-ask after an empty reply, and the adaptive limit's response to an overload."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.policy.adaptive import AdaptiveLimit
from autorubric_cli.judges.policy.failures import JudgeFailure
from autorubric_cli.judges.policy.providers import preflight, provider_name, sent_temperature
from autorubric_cli.judges.prompts import reask_messages
from autorubric_cli.judges.transports.litellm_errors import litellm_failure
from tests.support.cli import cli


class StatusError(Exception):
    def __init__(self, status: int | None, message: str) -> None:
        super().__init__(message)
        if status is not None:
            self.status_code = status


def rubric(tmp_path: Path, judge: str) -> Path:
    path = tmp_path / "rubric.yaml"
    path.write_text(
        "criteria:\n"
        "  - name: correct\n"
        "    requirement: The answer is correct\n"
        "grader:\n"
        "  judges:\n"
        f"{judge}"
    )
    return path


def check(path: Path) -> tuple[int, str]:
    # wide enough that a warning naming a long tmp path (xdist adds popen-gwN/) is not wrapped;
    # --no-env: these tests are about provider settings, not the key variables `check` reads
    result = cli("check", path, "--no-env", env={"COLUMNS": "400"})
    return result.exit_code, result.output


def test_check_refuses_thinking_with_an_explicit_temperature(tmp_path: Path) -> None:
    path = rubric(
        tmp_path,
        "    - model: anthropic/claude-sonnet-4-5\n      thinking: 2048\n      temperature: 0.2\n",
    )
    code, output = check(path)
    assert code == 2
    assert f"{path}:8: grader.judges[0].temperature: anthropic refuses a temperature" in output


def test_check_refuses_a_thinking_budget_not_below_max_tokens(tmp_path: Path) -> None:
    path = rubric(
        tmp_path,
        "    - model: anthropic/claude-sonnet-4-5\n      thinking: 4096\n      max_tokens: 4096\n",
    )
    code, output = check(path)
    assert code == 2
    assert f"{path}:7: grader.judges[0].thinking: a thinking budget of 4096" in output


def test_check_refuses_temperature_on_a_model_that_accepts_only_1(tmp_path: Path) -> None:
    path = rubric(tmp_path, "    - model: anthropic/claude-opus-4-7\n      temperature: 0\n")
    code, output = check(path)
    assert code == 2
    assert "grader.judges[0].temperature: anthropic/claude-opus-4-7 accepts temperature 1" in output


def test_run_refuses_before_any_call(tmp_path: Path) -> None:
    path = rubric(
        tmp_path,
        "    - model: anthropic/claude-sonnet-4-5\n"
        "      api_base: http://127.0.0.1:9\n"
        "      thinking: low\n"
        "      temperature: 0.5\n",
    )
    data = tmp_path / "data.jsonl"
    data.write_text('{"id": "a", "submission": "x"}\n')
    result = cli("run", path, data, "--out", tmp_path / "e")
    assert result.exit_code == 2
    assert "grader.judges[0].temperature" in result.output
    assert not (tmp_path / "e").exists()


def test_check_warns_about_an_unpriced_model_and_accepts_defaults(tmp_path: Path) -> None:
    path = rubric(
        tmp_path,
        "    - model: anthropic/claude-sonnet-4-5\n"
        "      thinking: 2048\n"
        "    - model: openai/my-private-model\n",
    )
    code, output = check(path)
    assert code == 0, output
    assert "grader.judges[1].model: litellm has no price for openai/my-private-model" in output
    assert "claude-sonnet-4-5" not in output.split("warning:", 1)[1]


def test_a_runs_preflight_warning_goes_through_logging_and_the_clis_one_handler(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = rubric(
        tmp_path, "    - model: openai/my-private-model\n      api_base: http://127.0.0.1:9/v1\n"
    )
    data = tmp_path / "data.jsonl"
    data.write_text('{"id": "a", "submission": "x"}\n')
    with caplog.at_level(logging.WARNING, logger="autorubric_cli"):
        result = cli("run", path, data, "--dry-run", env={"OPENAI_API_KEY": "k", "COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    said = f"{path}:6: grader.judges[0].model: litellm has no price for openai/my-private-model"
    assert [r.getMessage().split(": its cost")[0] for r in caplog.records] == [said]
    assert result.stderr.splitlines()[0].startswith(f"autorubric: warning: {said}")
    assert "no price" not in result.stdout


def test_warns_about_a_provider_without_structured_output() -> None:
    problems = preflight([JudgeSpec(model="replicate/meta/llama-3")])
    assert any("no JSON schema" in p.message and p.severity == "warning" for p in problems)


@pytest.mark.parametrize(
    ("spec", "sent"),
    [
        (JudgeSpec(model="anthropic/claude-sonnet-4-5"), 0.0),
        (JudgeSpec(model="anthropic/claude-sonnet-4-5", thinking=2048), None),
        (JudgeSpec(model="anthropic/claude-sonnet-4-5", thinking="low", temperature=1), 1),
        (JudgeSpec(model="anthropic/claude-opus-4-7"), None),
        (JudgeSpec(model="gemini/gemini-2.5-flash", thinking="low"), 0.0),
        (JudgeSpec(model="azure/o4-mini"), None),
        (JudgeSpec(model="openai/gpt-4o", temperature=None), None),
        (JudgeSpec(model="openai/gpt-5-mini"), None),
        (JudgeSpec(model="openai/gpt-5-mini", thinking="none"), 0.0),
        (JudgeSpec(model="openai/gpt-5-chat-latest"), 0.0),
    ],
)
def test_the_temperature_sent(spec: JudgeSpec, sent: float | None) -> None:
    assert sent_temperature(spec) == sent


def test_provider_names() -> None:
    assert provider_name("anthropic/claude-x") == "anthropic"
    assert provider_name("claude-3-haiku") == "anthropic"
    assert provider_name("gemini-2.5-pro") == "gemini"
    assert provider_name("bedrock/converse/anthropic.claude") == "bedrock"


def test_anthropic_overload_is_named_and_slows_down() -> None:
    exc = StatusError(
        500, 'AnthropicException - {"type":"error","error":{"type":"overloaded_error"}}'
    )
    failure = litellm_failure(exc, judge_id="j", secret=None)
    assert isinstance(failure, JudgeFailure)
    assert failure.describe().startswith("overloaded: HTTP 500: the provider is overloaded")
    assert failure.retryable and failure.category.slows_down


def test_gemini_unavailable_is_an_overload_and_its_retry_info_is_read() -> None:
    body = (
        '{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details": [{"@type": '
        '"type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "3s"}]}}'
    )
    failure = litellm_failure(
        StatusError(429, f"GeminiException - {body}"), judge_id="j", secret=None
    )
    assert isinstance(failure, JudgeFailure)
    assert (failure.category, failure.retry_after) == ("rate_limit", 3.0)
    overloaded = litellm_failure(
        StatusError(
            503, '{"error": {"message": "The model is overloaded.", "status": "UNAVAILABLE"}}'
        ),
        judge_id="j",
        secret=None,
    )
    assert isinstance(overloaded, JudgeFailure) and overloaded.category == "overloaded"


def test_a_plain_503_stays_a_server_error() -> None:
    failure = litellm_failure(StatusError(503, "Service Unavailable"), judge_id="j", secret=None)
    assert isinstance(failure, JudgeFailure) and failure.category == "server"


def test_litellm_groq_service_tier_bug_is_not_retried() -> None:
    exc = StatusError(
        500, "litellm.APIConnectionError: 'ModelResponse' object has no attribute 'service_tier'"
    )
    failure = litellm_failure(exc, judge_id="j", secret=None)
    assert isinstance(failure, JudgeFailure)
    assert (failure.category, failure.retryable, failure.hopeless) == ("client", False, True)
    assert "litellm bug" in failure.detail


def test_reask_after_an_empty_reply_sends_no_empty_assistant_turn() -> None:
    asked = reask_messages(
        [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}],
        "  ",
        JudgeFailure("parse", "empty"),
    )
    assert [m["role"] for m in asked] == ["system", "user"]
    assert asked[1]["content"].startswith("q\n\nYour previous reply could not be used (empty)")
    kept = reask_messages([{"role": "user", "content": "q"}], "prose", JudgeFailure("parse", "x"))
    assert [m["role"] for m in kept] == ["user", "assistant", "user"]


def test_a_slot_keeps_the_epoch_it_was_granted_in() -> None:
    """A call granted a slot before a decrease, resumed after it, belongs to the old window: its
    own 429 must not shrink the limit a second time."""

    async def scenario() -> tuple[int, float, float]:
        limit = AdaptiveLimit(10)
        limit.limit = 2.0
        assert await limit.acquire() == 0
        assert await limit.acquire() == 0
        waiting = asyncio.ensure_future(limit.acquire())
        await asyncio.sleep(0)
        limit.release()  # the waiter is granted the slot in epoch 0 ...
        limit.overloaded(0)  # ... and a 429 of epoch 0 shrinks the limit before it resumes
        after_first = limit.limit
        epoch = await waiting
        limit.overloaded(epoch)
        return epoch, after_first, limit.limit

    epoch, after_first, after_second = asyncio.run(scenario())
    assert epoch == 0
    assert after_second == after_first


@pytest.mark.parametrize(
    ("model", "refused"),
    [("ollama_chat/qwen3", True), ("azure/o4-mini", True), ("gemini/gemini-2.5-flash", False)],
)
def test_a_token_budget_where_only_an_effort_is_taken_is_refused(model: str, refused: bool) -> None:
    problems = preflight([JudgeSpec(model=model, thinking=2048)])
    errors = [p for p in problems if p.severity == "error"]
    assert bool(errors) == refused
    if refused:
        assert errors[0].key == ("grader", "judges", 0, "thinking")
        assert "not a token budget" in errors[0].message
