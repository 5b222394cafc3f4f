"""autorubric against a real model out of the box: llama-cpp-python's server on SmolLM2-135M
(tests/support/real_model.py), no setting beyond the model and its address.

These check plumbing, not the verdicts of a 135M model: the server's refusal of `json_schema`
switches the judge to `json_object` once; every vote is parsed or failed with the right kind
(`truncated`, `parse`); the usage recorded equals what the server reported, call for call; the
exit codes are the documented ones. Calls are few (one server per session, one slot): each test
grades one to three items.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import KEY_ENV, CliResult, cli
from tests.support.experiment.criteria import style
from tests.support.experiment.runs import manifest, start_cli, valid_lines, wait_for_lines
from tests.support.real_model import MODEL, RecordingProxy

BINARY = {"name": "correct", "requirement": "The answer names the right capital city."}
CHOICE = style()
ROWS = [
    {"id": "fr", "query": "What is the capital of France?", "submission": "It is Paris."},
    {"id": "it", "query": "What is the capital of Italy?", "submission": "Milan, obviously."},
    {"id": "de", "query": "What is the capital of Germany?", "submission": "Berlin."},
]
KINDS = ("truncated:", "parse:")  # how a real model's unusable replies may end, if they do
HANG_GUARD_S = 600.0


def write_inputs(
    tmp: Path,
    proxy: RecordingProxy,
    criteria: list[dict[str, Any]],
    rows: list[dict[str, Any]],
    **judge: Any,
) -> tuple[Path, Path]:
    spec = {
        "model": f"openai/{MODEL}",
        "id": "smol",
        "api_base": proxy.api_base,
        "api_key_env": KEY_ENV,
        "max_tokens": 160,
        **judge,
    }
    grader = {"judges": [spec], "concurrency": 1, "workers": 0, "timeout": HANG_GUARD_S}
    rubric = {"criteria": criteria, "grader": {**grader, "retry": {"initial_wait": 0.01}}}
    (tmp / "rubric.yaml").write_text(json.dumps(rubric))
    (tmp / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp / "rubric.yaml", tmp / "data.jsonl"


def run(
    tmp: Path,
    proxy: RecordingProxy,
    criteria: list[dict[str, Any]],
    rows: list[dict[str, Any]],
    **judge: Any,
) -> CliResult:
    rubric, data = write_inputs(tmp, proxy, criteria, rows, **judge)
    return cli("run", rubric, data, "--out", tmp / "exp", "--format", "json")


def check_plumbing(
    exit_code: int, directory: Path, proxy: RecordingProxy, votes: int, sessions: int = 1
) -> None:
    """What any run against the real server must show, whatever the model answered: each
    session (`run`, `resume`) was refused `json_schema` once, then sent `json_object`."""
    records = valid_lines(directory / "items.jsonl")
    recorded = [v for r in records for c in r["criteria"] for v in c["votes"]]
    assert len(recorded) == votes
    for vote in recorded:
        if vote["error"] is None:
            assert vote["verdict"] is not None or vote["option_index"] is not None, vote
        else:
            assert vote["error"].startswith(KINDS), vote
    assert exit_code == (3 if any(v["error"] for v in recorded) else 0)
    paid = {"prompt_tokens": 0, "completion_tokens": 0}
    for record in records:
        for key in paid:
            paid[key] += record["usage"].get(key, 0)
    assert paid == proxy.served_usage()  # ours = the server's, call for call
    refused = [e for e in proxy.exchanges if e.status != 200]
    assert [(e.status, e.body["response_format"]["type"]) for e in refused] == [
        (500, "json_schema")
    ] * sessions
    answered = [e for e in proxy.exchanges if e.status == 200]
    assert {e.body["response_format"]["type"] for e in answered} == {"json_object"}
    assert manifest(directory)["sent"]["smol"]["structured_output"] == "json_object"


@pytest.mark.parametrize("transport", ["native", "litellm"])
def test_per_criterion(real_model: RecordingProxy, tmp_path: Path, transport: str) -> None:
    result = run(tmp_path, real_model, [BINARY, CHOICE], ROWS[:1], transport=transport)
    check_plumbing(result.exit_code, tmp_path / "exp", real_model, votes=2)
    assert "refused structured_output json_schema (HTTP 500)" in result.stderr


@pytest.mark.parametrize("transport", ["native", "litellm"])
def test_per_item(real_model: RecordingProxy, tmp_path: Path, transport: str) -> None:
    rubric, data = write_inputs(
        tmp_path, real_model, [BINARY, CHOICE], ROWS[:1], transport=transport
    )
    result = cli("run", rubric, data, "--out", tmp_path / "exp", "--llm-calls", "per_item")
    check_plumbing(result.exit_code, tmp_path / "exp", real_model, votes=2)
    first = real_model.exchanges[1].body["response_format"]["schema"]["properties"]["criteria"]
    assert first["minItems"] == first["maxItems"] == 2  # the grammar stops at one entry each


def test_a_conversation(real_model: RecordingProxy, tmp_path: Path) -> None:
    conversation = [
        {"role": "user", "content": "What is the capital of France?"},
        {"role": "assistant", "content": "Let me check.", "reasoning": "look it up"},
        {"role": "assistant", "content": "It is Paris."},
    ]
    final = {**BINARY, "scope": "final_turn"}
    result = run(tmp_path, real_model, [final], [{"id": "c1", "submission": conversation}])
    check_plumbing(result.exit_code, tmp_path / "exp", real_model, votes=1)
    prompt = json.dumps(real_model.exchanges[-1].body["messages"])
    assert "Let me check." in prompt and "It is Paris." in prompt


def test_samples(real_model: RecordingProxy, tmp_path: Path) -> None:
    result = run(tmp_path, real_model, [BINARY], ROWS[:1], samples=2)
    check_plumbing(result.exit_code, tmp_path / "exp", real_model, votes=2)
    (record,) = valid_lines(tmp_path / "exp" / "items.jsonl")
    assert sorted(v["sample"] for v in record["criteria"][0]["votes"]) == [0, 1]


def test_resume_after_sigint(real_model: RecordingProxy, tmp_path: Path) -> None:
    rubric, data = write_inputs(tmp_path, real_model, [BINARY], ROWS)
    out = tmp_path / "exp"
    process = start_cli("run", rubric, data, "--out", out)
    assert wait_for_lines(out / "items.jsonl", 1, process, limit=HANG_GUARD_S)
    real_model.hold()  # the calls still to come wait out the grace period: some item is left
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=HANG_GUARD_S)
    real_model.release()
    assert process.returncode == 130, err.decode()
    assert manifest(out)["status"] == "interrupted"
    assert len(valid_lines(out / "items.jsonl")) < len(ROWS)
    resumed = cli("resume", out)
    ids = [line["id"] for line in valid_lines(out / "items.jsonl")]
    assert sorted(ids) == sorted(r["id"] for r in ROWS)  # each graded once
    check_plumbing(resumed.exit_code, out, real_model, votes=len(ROWS), sessions=2)
    assert manifest(out)["status"] == "completed"
