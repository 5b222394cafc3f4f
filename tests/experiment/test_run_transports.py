"""The whole CLI over either transport: the same records, native runs without litellm, `check`
names each judge's transport, and a dead judge stops the run alike (docs/guides/transports.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import closed_port
from tests.support.experiment.runs import KEY_ENV, cli_env, valid_lines, write_dataset
from tests.support.judge_server import JudgeServer

TRANSPORTS = ["native", "litellm"]


def run_cli(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`autorubric ARGS` in a fresh interpreter (what a user runs), with the test key set."""
    command = [sys.executable, "-m", "autorubric_cli", *map(str, args)]
    return subprocess.run(command, env=cli_env(), capture_output=True, text=True, timeout=timeout)


def judge_lines(model: str, api_base: str, transport: str, **extra: Any) -> str:
    lines = [
        f"    - model: {model}",
        f"      id: {model.split('/')[-1]}",
        f"      api_base: {api_base}",
        f"      api_key_env: {KEY_ENV}",
        f"      transport: {transport}",
        "      samples: 2",
        "      sample_request: separate",  # a request per sample, as the counts below say
        "      max_concurrency: 4",
        *(f"      {key}: {value}" for key, value in extra.items()),
    ]
    return "\n".join(lines) + "\n"


def rubric(path: Path, api_base: str, transport: str, model: str = "openai/gpt-4o-mini") -> Path:
    """Two judges on `api_base`: `model` (priced by litellm), and a local model with thinking."""
    judges = judge_lines(model, api_base, transport)
    judges += judge_lines("openai/local-model", api_base, transport, thinking="low")
    path.write_text(
        f"""name: transports
criteria:
  - name: correct
    requirement: "The answer is correct"
  - name: style
    requirement: "How good is the style?"
    options:
      - {{label: Bad, value: 0.0}}
      - {{label: Okay, value: 0.5}}
      - {{label: Great, value: 1.0}}
grader:
  judges:
{judges}  seed: 11
  timeout: 5
  workers: 0
  retry: {{initial_wait: 0.01, max_wait: 0.05, max_retry_after: 0.3}}
"""
    )
    return path


def records(directory: Path) -> dict[str, Any]:
    """Everything a record says about its votes, usage and cost; not timing."""
    out = {}
    for line in valid_lines(directory / "items.jsonl"):
        votes = [
            {k: v for k, v in vote.items() if k not in ("duration_s",)}
            for c in line["criteria"]
            for vote in c["votes"]
        ]
        out[line["id"]] = (line["status"], line["score"], line["usage"], line["cost"], votes)
    return out


def test_native_and_litellm_record_the_same_run(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 12)
    runs = {}
    with JudgeServer(reasoning="checked the figure") as server:
        for transport in TRANSPORTS:
            path = rubric(tmp_path / f"{transport}.yaml", server.api_base, transport)
            out = tmp_path / transport
            done = run_cli("run", path, data, "--out", out, "--no-cache")
            assert done.returncode == 0, done.stderr
            runs[transport] = records(out)
    native, via_litellm = runs["native"], runs["litellm"]
    assert len(native) == 12 and native == via_litellm
    votes = [vote for record in native.values() for vote in record[4]]
    priced = [vote for vote in votes if vote["judge"] == "gpt-4o-mini"]
    thinking = [vote for vote in votes if vote["judge"] == "local-model"]
    assert len(priced) == len(thinking) == 12 * 2 * 2
    assert all(vote["cost"] is not None and vote["cost"] > 0 for vote in priced)
    assert all(vote["thinking"] == "checked the figure" for vote in thinking)
    assert all(vote["cost"] is None for vote in thinking)
    assert any(vote["shuffle_order"] for vote in votes)


def imported_modules(*args: str | Path) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "autorubric_cli", *map(str, args)],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=120,
    )
    names = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    return done, names


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_run_whose_judges_are_all_native_never_imports_litellm(
    tmp_path: Path, transport: str
) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 3)
    with JudgeServer() as server:
        path = rubric(tmp_path / "r.yaml", server.api_base, transport, "hosted_vllm/served")
        done, names = imported_modules("run", path, data, "--out", tmp_path / "exp")
        assert server.request_count == 24
    assert done.returncode == 0, done.stderr
    assert "autorubric_cli.judges.transports.native" in names  # the log is really read
    uses_litellm = any(name.split(".")[0] == "litellm" for name in names)
    assert uses_litellm == (transport == "litellm")


def test_check_names_the_transport_of_each_judge(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(
        """criteria:
  - {name: a, requirement: "x"}
grader:
  judges:
    - {model: hosted_vllm/llama, api_base: "http://127.0.0.1:9/v1", id: vllm}
    - {model: openai/qwen, api_base: "http://127.0.0.1:9/v1", id: forced, transport: litellm}
    - {model: openai/gpt-4.1-mini, id: openai}
    - {model: anthropic/claude-sonnet-4-5, id: claude}
"""
    )
    done = run_cli("check", path, "--no-env")  # no OPENAI_API_KEY here
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "vllm (native: hosted_vllm/ chat completions)" in text
    assert "forced (litellm: set in the rubric)" in text
    assert "openai (litellm: openai/ without api_base (OpenAI's own API))" in text
    assert "claude (litellm: not an OpenAI-compatible model prefix)" in text


@pytest.mark.parametrize(
    ("judge", "message"),
    [
        ("{model: anthropic/claude-x, transport: native}", "takes only openai/ and hosted_vllm/"),
        ("{model: openai/m, transport: native}", "needs api_base"),
        ("{model: hosted_vllm/m, transport: native, thinking: 512}", "not a budget"),
        ("{model: hosted_vllm/m, transport: fast}", "transport"),
    ],
)
def test_a_transport_that_cannot_work_is_a_one_line_error(
    tmp_path: Path, judge: str, message: str
) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(
        f'criteria:\n  - {{name: a, requirement: "x"}}\ngrader:\n  judges:\n    - {judge}\n'
    )
    done = run_cli("check", path)
    assert done.returncode == 2
    (line,) = [x for x in done.stderr.splitlines() if x.strip()]
    assert f"{path}:5" in line and message in line


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_dead_judge_stops_the_run_alike(tmp_path: Path, transport: str) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 200)
    api_base = f"http://127.0.0.1:{closed_port()}/v1"
    done = run_cli(
        "run", rubric(tmp_path / "r.yaml", api_base, transport), data, "--out", tmp_path / "e"
    )
    assert done.returncode == 2
    assert f"connection refused to {api_base}" in done.stderr
    assert valid_lines(tmp_path / "e" / "items.jsonl") == []
    with JudgeServer(fault_rate=1.0, fault_kinds=("not_found",)) as server:
        path = rubric(tmp_path / "r404.yaml", server.api_base, transport)
        done = run_cli("run", path, data, "--out", tmp_path / "e404")
        requests = server.request_count
    assert done.returncode == 2 and "HTTP 404" in done.stderr
    assert 5 <= requests <= 50
