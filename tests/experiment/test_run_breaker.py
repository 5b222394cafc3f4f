"""A dead or misconfigured judge stops the run (exit 2); what it failed stays unrecorded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from autorubric_cli.judges.transports.litellm import load_litellm
from tests.support import closed_port
from tests.support.cli import cli
from tests.support.experiment.runs import (
    comparable,
    manifest,
    server_rubric,
    start_cli,
    valid_lines,
    wait_for_lines,
    write_dataset,
)
from tests.support.judge_server import JudgeServer


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("autorubric: error:")]


def counted_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every judge call made in this process (the CLI runs in-process), by api_base, whichever
    transport makes it (`litellm.acompletion`, or the native transport's POST,
    docs/guides/transports.md): a closed port answers nothing, so the client is where attempts are
    counted."""
    from autorubric_cli.judges.transports.native import NativeTransport

    litellm = load_litellm()
    calls: list[str] = []
    real = litellm.acompletion
    real_post = NativeTransport._post

    async def counting(**kwargs: Any) -> Any:
        calls.append(str(kwargs.get("api_base")))
        return await real(**kwargs)

    async def counting_post(self: NativeTransport, data: bytes, headers: Any) -> Any:
        calls.append(str(self.spec.api_base))
        return await real_post(self, data, headers)

    monkeypatch.setattr(litellm, "acompletion", counting)
    monkeypatch.setattr(NativeTransport, "_post", counting_post)
    return calls


def test_a_closed_port_stops_2000_items_after_a_few_calls_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 2000)
    api_base = f"http://127.0.0.1:{closed_port()}/v1"
    rubric = server_rubric(tmp_path / "r.yaml", api_base, concurrency=16)
    out = tmp_path / "exp"
    calls = counted_calls(monkeypatch)
    result = cli("run", rubric, data, "--out", out)
    assert result.exit_code == 2, result.stderr
    # Stopped by the breaker (5 refusals in a row) with the calls then in flight, not after
    # 6,000 votes x 6 attempts: the count, not the clock, shows it stopped early.
    assert 5 <= len(calls) <= 50, len(calls)
    assert set(calls) == {api_base}
    (line,) = error_lines(result.stderr)
    assert "'j0'" in line and f"connection refused to {api_base}" in line
    assert f"autorubric resume {out}" in line
    assert valid_lines(out / "items.jsonl") == []  # nothing recorded: resume grades it all
    assert manifest(out)["status"] == "failed"


def test_a_server_answering_404_gets_at_most_50_requests(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", 500)
    with JudgeServer(fault_rate=1.0, fault_kinds=("not_found",)) as server:
        rubric = server_rubric(tmp_path / "r.yaml", server.api_base, concurrency=64)
        out = tmp_path / "exp"
        result = cli("run", rubric, data, "--out", out)
        requests = server.request_count
    assert result.exit_code == 2, result.stderr
    assert 5 <= requests <= 50
    (line,) = error_lines(result.stderr)
    assert "'j0'" in line and "HTTP 404" in line
    assert valid_lines(out / "items.jsonl") == []


def test_a_server_dying_mid_run_keeps_what_finished_and_resume_matches(tmp_path: Path) -> None:
    n, die_after = 150, 100  # the bench's 300, scaled down for the suite
    data = write_dataset(tmp_path / "data.jsonl", n)
    server = JudgeServer(latency=0.01).start()
    port = server.port
    try:
        rubric = server_rubric(tmp_path / "r.yaml", server.api_base, concurrency=16)
        out = tmp_path / "exp"
        proc = start_cli("run", rubric, data, "--out", out, "--no-cache")
        assert wait_for_lines(out / "items.jsonl", die_after, proc, limit=120)
        server.stop()
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 2, err.decode()
        assert "connection refused" in err.decode()
        kept = valid_lines(out / "items.jsonl")
        assert die_after <= len(kept) < n
        assert all(line["status"] == "ok" for line in kept)  # the rest: unrecorded, not errored

        server = JudgeServer(latency=0.01, port=port).start()
        resumed = cli("resume", out, "--no-cache", "--format", "json")
        assert resumed.exit_code == 0, resumed.stderr
        assert json.loads(resumed.stdout)["items"]["completed"] == n
        reference = tmp_path / "reference"
        whole = cli("run", rubric, data, "--out", reference, "--no-cache")
        assert whole.exit_code == 0, whole.stderr
    finally:
        server.stop()
    ids = [line["id"] for line in valid_lines(out / "items.jsonl")]
    assert len(ids) == len(set(ids)) == n
    assert comparable(out) == comparable(reference)


def test_a_gate_left_undefined_by_errored_items_exits_3_with_junit_errors(tmp_path: Path) -> None:
    from junitparser import Error, JUnitXml

    data = write_dataset(tmp_path / "data.jsonl", 4)
    with JudgeServer(fault_rate=1.0, fault_kinds=("server_error",)) as server:
        rubric = server_rubric(
            tmp_path / "r.yaml",
            server.api_base,
            max_attempts=1,
            grader_extra="  breaker: {failed_votes: 1000}\n",
        )
        out, junit = tmp_path / "exp", tmp_path / "junit.xml"
        result = cli("run", rubric, data, "--out", out, "--fail-under", "0.5", "--junit", junit)
    assert result.exit_code == 3, result.stderr
    suite = next(iter(JUnitXml.fromfile(str(junit))))
    kinds = {case.name: [type(r) for r in case.result] for case in suite}
    assert kinds["score.mean min 0.500"] == [Error]
    assert all(kinds[f"it{i:04d}"] == [Error] for i in range(4))
    assert suite.failures == 0 and suite.errors == 5
