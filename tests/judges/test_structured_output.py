"""Structured-output dialects (judges/transports/dialect.py, docs/guides/transports.md): a server
that refuses the reply format gets the next dialect for the rest of the run, said in one line
and recorded in the manifest; a refusal is never retried as a server fault; a refused dialect
the rubric set, or the last one, stops the run with a line naming `structured_output`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from autorubric_cli.judges.policy.failures import ProviderError, classify, http_error
from autorubric_cli.judges.policy.kinds import FailureKind
from tests.support.cli import KEY_ENV, CliResult, cli
from tests.support.experiment.criteria import CORRECT, style
from tests.support.judge_server import JudgeServer
from tests.support.providers.ollama import OllamaFake

CRITERIA = [CORRECT, style()]
ITEMS = 2


def run(tmp: Path, judge: dict[str, Any], *, llm_calls: str = "per_criterion") -> CliResult:
    rubric = {
        "criteria": CRITERIA,
        "grader": {
            "judges": [{"id": "j", **judge}],
            "concurrency": 1,
            "workers": 0,
            "cache": False,
            "llm_calls": llm_calls,
            "retry": {"initial_wait": 0.01, "max_wait": 0.05},
        },
    }
    (tmp / "rubric.yaml").write_text(json.dumps(rubric))
    rows = [{"id": f"it{i}", "submission": f"Paris is in France ({i})."} for i in range(ITEMS)]
    (tmp / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return cli("run", tmp / "rubric.yaml", tmp / "data.jsonl", "--out", tmp / "exp")


def local_judge(server: JudgeServer, **extra: Any) -> dict[str, Any]:
    return {"model": "openai/local", "api_base": server.api_base, "api_key_env": KEY_ENV, **extra}


def votes(directory: Path) -> list[dict[str, Any]]:
    lines = (directory / "items.jsonl").read_text().splitlines()
    return [v for line in lines for c in json.loads(line)["criteria"] for v in c["votes"]]


def manifest(directory: Path) -> dict[str, Any]:
    return json.loads((directory / "manifest.json").read_text())


def switch_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if "refused structured_output" in line]


@pytest.mark.parametrize("llm_calls", ["per_criterion", "per_item"])
@pytest.mark.parametrize("transport", ["native", "litellm"])
def test_a_server_refusing_json_schema_gets_json_object_for_the_rest_of_the_run(
    judge_server_factory: Callable[..., JudgeServer],
    tmp_path: Path,
    transport: str,
    llm_calls: str,
) -> None:
    server = judge_server_factory(refuses=("json_schema",))  # llama-cpp-python 0.3.36
    result = run(tmp_path, local_judge(server, transport=transport), llm_calls=llm_calls)
    assert result.exit_code == 0, result.output
    first, *rest = server.requests
    assert (
        first.fault == "format_refused" and first.body["response_format"]["type"] == "json_schema"
    )
    assert rest and all(r.fault is None for r in rest)  # refused once, never retried as a fault
    for request in rest:
        sent = request.body["response_format"]
        assert sent["type"] == "json_object" and sent["schema"]["type"] == "object"
    (line,) = switch_lines(result.stderr)
    assert "judge 'j': the server refused structured_output json_schema (HTTP 500)" in line
    assert line.endswith("using json_object for the rest of the run")
    assert manifest(tmp_path / "exp")["sent"]["j"]["structured_output"] == "json_object"
    recorded = votes(tmp_path / "exp")
    assert len(recorded) == ITEMS * len(CRITERIA)
    assert all(v["error"] is None and v["attempts"] == 1 for v in recorded)  # not an attempt


def test_a_server_refusing_every_schema_form_is_asked_through_the_prompt(
    judge_server_factory: Callable[..., JudgeServer], tmp_path: Path
) -> None:
    server = judge_server_factory(refuses=("json_schema", "json_object"))
    result = run(tmp_path, local_judge(server))
    assert result.exit_code == 0, result.output
    refused = [r.body["response_format"]["type"] for r in server.requests if r.fault]
    assert refused == ["json_schema", "json_object"]
    answered = [r for r in server.requests if r.fault is None]
    assert len(answered) == ITEMS * len(CRITERIA)
    assert all("response_format" not in r.body for r in answered)
    assert len(switch_lines(result.stderr)) == 2
    assert manifest(tmp_path / "exp")["sent"]["j"]["structured_output"] == "prompt"
    assert all(v["error"] is None for v in votes(tmp_path / "exp"))


@pytest.mark.parametrize("transport", ["native", "litellm"])
def test_a_refusal_of_the_dialect_the_rubric_set_stops_the_run_at_once(
    judge_server_factory: Callable[..., JudgeServer], tmp_path: Path, transport: str
) -> None:
    server = judge_server_factory(refuses=("json_schema",))
    judge = local_judge(server, transport=transport, structured_output="json_schema")
    result = run(tmp_path, judge)
    assert result.exit_code == 2, result.output
    assert server.request_count == 1  # a configuration error: never retried as a server fault
    assert "the server refused structured_output json_schema (format: HTTP 500" in result.stderr
    assert "set structured_output: auto, or another dialect" in result.stderr
    assert manifest(tmp_path / "exp")["status"] == "failed"
    assert (tmp_path / "exp" / "items.jsonl").read_text() == ""


def test_a_json_object_judge_sends_json_object_from_the_first_call(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    result = run(tmp_path, local_judge(judge_server, structured_output="json_object"))
    assert result.exit_code == 0, result.output
    assert {r.body["response_format"]["type"] for r in judge_server.requests} == {"json_object"}
    assert manifest(tmp_path / "exp")["sent"]["j"]["structured_output"] == "json_object"


def test_an_ollama_that_cannot_take_the_schema_gets_format_json(tmp_path: Path) -> None:
    with OllamaFake(refuses_schema=True) as fake:
        judge = {"model": "ollama_chat/qwen3", "api_base": fake.api_base}
        result = run(tmp_path, judge)
        formats = [(r.status, r.body.get("format")) for r in fake.requests]
    assert result.exit_code == 0, result.output
    assert formats[0][0] == 500 and isinstance(formats[0][1], dict)  # the schema, refused
    assert formats[1:] == [(200, "json")] * (ITEMS * len(CRITERIA))
    assert manifest(tmp_path / "exp")["sent"]["j"]["structured_output"] == "json_object"


@pytest.mark.parametrize(
    ("status", "message", "kind"),
    [
        (500, "Input should be 'text' or 'json_object' at ('body', 'response_format')", "format"),
        (500, 'response_format type must be one of "text" or "json_object"', "format"),
        (400, "litellm does not support parameters: ['response_format']", "format"),
        (500, "invalid JSON schema in format", "format"),
        (500, "internal error", "server"),
        (400, "invalid message format", "request"),
        (429, "response_format is rate limited", "rate_limit"),
    ],
)
def test_a_refusal_names_the_reply_format_in_its_text(status: int, message: str, kind: str) -> None:
    failure = classify(http_error(status, message, {}), judge_id="j", secret=None)
    assert failure.category == kind
    if kind == "format":
        assert failure.retryable is False and failure.hopeless is False
    assert classify(ProviderError(None, message), judge_id="j", secret=None).category == (
        FailureKind.ERROR
    )


@pytest.mark.parametrize(
    ("judge", "message"),
    [
        (
            {"model": "anthropic/claude-sonnet-4-5", "structured_output": "json_object"},
            "anthropic takes structured_output json_schema, prompt, not json_object",
        ),
        (
            {"model": "cohere/command-r", "structured_output": "json_schema"},
            "cohere takes structured_output prompt, not json_schema",
        ),
        (
            {"model": "openai/x", "params": {"extra_body": {"response_format": {"type": "text"}}}},
            "set the judge's `structured_output` instead",
        ),
    ],
)
def test_check_refuses_a_dialect_the_provider_cannot_take(
    tmp_path: Path, judge: dict[str, Any], message: str
) -> None:
    rubric = {"criteria": CRITERIA, "grader": {"judges": [judge]}}
    (tmp_path / "rubric.yaml").write_text(json.dumps(rubric))
    result = cli("check", tmp_path / "rubric.yaml", env={"ANTHROPIC_API_KEY": "x"})
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert "grader.judges" in result.stderr


def test_calls_in_flight_at_the_refusal_switch_once_and_none_is_an_attempt(
    judge_server_factory: Callable[..., JudgeServer], tmp_path: Path
) -> None:
    server = judge_server_factory(refuses=("json_schema",), latency=0.02)
    judge = local_judge(server, max_concurrency=4)
    rubric = {
        "criteria": CRITERIA,
        "grader": {"judges": [{"id": "j", **judge}], "concurrency": 4, "workers": 0},
    }
    (tmp_path / "rubric.yaml").write_text(json.dumps(rubric))
    rows = [{"id": f"it{i}", "submission": f"answer {i}"} for i in range(6)]
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = cli("run", tmp_path / "rubric.yaml", tmp_path / "data.jsonl", "--out", tmp_path / "e")
    assert result.exit_code == 0, result.output
    refused = [r for r in server.requests if r.fault == "format_refused"]
    assert 1 <= len(refused) <= 4  # at most the calls already sent when the first was refused
    assert len(server.requests) - len(refused) == 6 * len(CRITERIA)
    assert len(switch_lines(result.stderr)) == 1
    assert all(v["attempts"] == 1 and v["error"] is None for v in votes(tmp_path / "e"))
