"""What we pass to litellm.acompletion, and the lazy import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.errors import InputError
from autorubric_cli.judges.request import Call
from autorubric_cli.judges.transports.body import thinking_kwargs
from autorubric_cli.judges.transports.litellm import api_key_for, request_kwargs

MESSAGES = [{"role": "user", "content": "q"}]


def call(response_format: dict) -> Call:
    return Call(MESSAGES, response_format, None)  # type: ignore[arg-type]


def test_every_call_disables_litellm_retries_and_sets_a_timeout() -> None:
    spec = JudgeSpec(model="openai/x", temperature=0.2, max_tokens=300, api_base="http://h/v1")
    kwargs = request_kwargs(spec, 45.0, call({"type": "json_schema"}))
    assert kwargs == {
        "model": "openai/x",
        "messages": MESSAGES,
        "response_format": {"type": "json_schema"},
        "timeout": 45.0,
        "max_retries": 0,
        "num_retries": 0,
        "temperature": 0.2,
        "max_tokens": 300,
        "api_base": "http://h/v1",
    }
    assert "api_key" not in kwargs


def test_judge_timeout_overrides_the_global_one_and_null_temperature_is_omitted() -> None:
    spec = JudgeSpec(model="openai/x", timeout=5, temperature=None)
    kwargs = request_kwargs(spec, 60.0, call({}))
    assert kwargs["timeout"] == 5
    assert "temperature" not in kwargs and "max_tokens" not in kwargs


@pytest.mark.parametrize(
    ("thinking", "expected"),
    [
        (None, {}),
        ("low", {"reasoning_effort": "low"}),
        ("high", {"reasoning_effort": "high"}),
        (2048, {"thinking": {"type": "enabled", "budget_tokens": 2048}}),
        ("1024", {"thinking": {"type": "enabled", "budget_tokens": 1024}}),
    ],
)
def test_thinking_setting(thinking: str | int | None, expected: dict) -> None:
    assert thinking_kwargs(thinking) == expected
    spec = JudgeSpec(model="anthropic/claude", thinking=thinking)
    kwargs = request_kwargs(spec, 60.0, call({}))
    for key, value in expected.items():
        assert kwargs[key] == value


def test_key_is_read_from_the_named_variable_at_call_time(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = JudgeSpec(model="openai/x", id="gpt", api_key_env="MY_JUDGE_KEY")
    monkeypatch.setenv("MY_JUDGE_KEY", "first")
    assert api_key_for(spec) == "first"
    monkeypatch.setenv("MY_JUDGE_KEY", "second")
    assert api_key_for(spec) == "second"
    monkeypatch.setenv("MY_JUDGE_KEY", "")
    with pytest.raises(InputError, match="'gpt'.*MY_JUDGE_KEY"):
        api_key_for(spec)
    assert api_key_for(JudgeSpec(model="ollama/llama3")) is None


def test_importing_the_judge_and_grading_layers_does_not_import_litellm() -> None:
    code = (
        "import sys, autorubric_cli, autorubric_cli.judges.judge, autorubric_cli.grading.grader\n"
        "from autorubric_cli import CriterionGrader\n"
        "assert 'litellm' not in sys.modules\n"
    )
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
