"""The call cache end to end (docs/guides/cache-and-cost.md): counted in requests the loopback
server receives."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.support.cli import cli
from tests.support.experiment.cache import (
    CRITERIA,
    MODELS,
    by_id,
    cache_rubric,
    without_cache_marks,
)
from tests.support.experiment.runs import (
    KEY_ENV,
    KEY_VALUE,
    start_cli,
    token,
    valid_lines,
    wait_for_lines,
    write_dataset,
)
from tests.support.judge_server import JudgeServer

N = 40


def report(directory: Path) -> dict:
    return json.loads((directory / "report.json").read_text())


def run_ok(*args: str | Path) -> str:
    result = cli("run", *args)
    assert result.exit_code == 0, result.stderr
    return result.stderr


def test_rerun_edit_add_judge_and_temperature_pay_only_for_what_changed(tmp_path: Path) -> None:
    with JudgeServer() as server:
        data = write_dataset(tmp_path / "data.jsonl", N)
        rubric = cache_rubric(tmp_path / "r.yaml", server.api_base)
        run_ok(rubric, data, "--out", tmp_path / "a")
        assert server.request_count == N * 4 * 2
        server.reset()

        run_ok(rubric, data, "--out", tmp_path / "b")
        assert server.request_count == 0
        a, b = by_id(tmp_path / "a"), by_id(tmp_path / "b")
        assert {k: without_cache_marks(v) for k, v in a.items()} == {
            k: without_cache_marks(v) for k, v in b.items()
        }
        a_votes = [v for r in a.values() for c in r["criteria"] for v in c["votes"]]
        b_votes = [v for r in b.values() for c in r["criteria"] for v in c["votes"]]
        assert not any(v["cached"] for v in a_votes) and all(v["cached"] for v in b_votes)
        assert [(v["usage"], v["cost"]) for v in a_votes] == [
            (v["usage"], v["cost"]) for v in b_votes
        ]
        ra, rb = report(tmp_path / "a"), report(tmp_path / "b")
        assert ra["cost"] > 0 and ra["cost_saved"] == 0.0
        assert rb["cost"] == 0.0 and rb["usage"] == {"prompt_tokens": 0, "completion_tokens": 0}
        assert math.isclose(rb["cost_saved"], ra["cost"], rel_tol=1e-12)
        assert rb["usage_saved"] == ra["usage"]
        for ja, jb in zip(ra["judges"], rb["judges"], strict=True):
            assert (jb["cached"], ja["cached"]) == (N * 4, 0)
            assert math.isclose(jb["cost_saved"], ja["cost"], rel_tol=1e-12)
            assert (jb["cost"], ja["cost_saved"]) == (0.0, 0.0)
        server.reset()

        edited = [dict(c) for c in CRITERIA]
        edited[2]["requirement"] = "How good is the prose style, really?"
        rubric = cache_rubric(tmp_path / "r.yaml", server.api_base, criteria=edited)
        run_ok(rubric, data, "--out", tmp_path / "c")
        assert server.request_count == N * 2
        assert len(server.requests_mentioning("prose style, really")) == N * 2
        server.reset()

        rubric = cache_rubric(tmp_path / "r.yaml", server.api_base, criteria=edited, judges=3)
        run_ok(rubric, data, "--out", tmp_path / "d")
        assert server.request_count == N * 4
        assert {r.model for r in server.requests} == {MODELS[2].removeprefix("openai/")}
        server.reset()

        rubric = cache_rubric(
            tmp_path / "r.yaml",
            server.api_base,
            criteria=edited,
            judges=3,
            judge_extra={1: {"temperature": 0.7}},
        )
        run_ok(rubric, data, "--out", tmp_path / "e")
        assert server.request_count == N * 4
        assert {(r.model, r.body["temperature"]) for r in server.requests} == {
            (MODELS[1].removeprefix("openai/"), 0.7)
        }


def test_no_cache_and_cache_false_neither_read_nor_write(
    tmp_path: Path, isolated_call_cache: Path
) -> None:
    with JudgeServer() as server:
        data = write_dataset(tmp_path / "data.jsonl", 5)
        off = cache_rubric(tmp_path / "off.yaml", server.api_base, judges=1, cache=False)
        run_ok(off, data, "--out", tmp_path / "a")
        assert not (isolated_call_cache / "calls.sqlite3").exists()
        rubric = cache_rubric(tmp_path / "r.yaml", server.api_base, judges=1)
        run_ok(rubric, data, "--out", tmp_path / "b", "--cache-dir", tmp_path / "mine")
        info = cli("cache", "info", "--cache-dir", tmp_path / "mine", "-f", "json")
        assert json.loads(info.stdout)["entries"] == 5 * 4
        run_ok(
            rubric, data, "--out", tmp_path / "c", "--cache-dir", tmp_path / "mine", "--no-cache"
        )
        assert server.request_count == 3 * 5 * 4
        assert not (isolated_call_cache / "calls.sqlite3").exists()
        assert (
            json.loads((tmp_path / "a" / "manifest.json").read_text())["config"]["cache"] is False
        )


def test_identical_calls_in_flight_are_sent_once_and_paid_once(tmp_path: Path) -> None:
    """Two judges with the same model and settings send identical binary calls."""
    with JudgeServer(latency=0.05) as server:
        data = write_dataset(tmp_path / "data.jsonl", 10)
        twin = {"model": MODELS[0]}
        rubric = cache_rubric(
            tmp_path / "r.yaml", server.api_base, criteria=CRITERIA[:2], judge_extra={1: twin}
        )
        run_ok(rubric, data, "--out", tmp_path / "a")
        assert server.request_count == 10 * 2
        records = by_id(tmp_path / "a")
        votes = [c["votes"] for r in records.values() for c in r["criteria"]]
        assert all(pair[0]["verdict"] == pair[1]["verdict"] for pair in votes)
        assert all(sum(v["cached"] for v in pair) == 1 for pair in votes)
        paid = [v for pair in votes for v in pair if not v["cached"]]
        assert math.isclose(report(tmp_path / "a")["cost"], sum(v["cost"] for v in paid))


def test_two_cold_runs_at_once_send_each_call_at_most_twice(tmp_path: Path) -> None:
    with JudgeServer(latency=0.02) as server:
        data = write_dataset(tmp_path / "data.jsonl", 12)
        rubric = cache_rubric(tmp_path / "r.yaml", server.api_base)
        procs = [start_cli("run", rubric, data, "--out", tmp_path / name) for name in "ab"]
        for proc in procs:
            _, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err.decode()
        sent: dict[str, int] = {}
        for request in server.requests:
            key = json.dumps([request.model, request.messages], sort_keys=True)
            sent[key] = sent.get(key, 0) + 1
        assert len(sent) == 12 * 4 * 2 and max(sent.values()) <= 2
        server.reset()
        run_ok(rubric, data, "--out", tmp_path / "ref", "--no-cache")
    a, b, ref = (by_id(tmp_path / n) for n in ("a", "b", "ref"))
    assert len(a) == len(b) == 12
    for run in (a, b):
        assert {k: without_cache_marks(v) for k, v in run.items()} == {
            k: without_cache_marks(v) for k, v in ref.items()
        }


def test_kill_during_a_cached_run_then_resume(tmp_path: Path, isolated_call_cache: Path) -> None:
    with JudgeServer(latency=0.05) as server:
        data = write_dataset(tmp_path / "data.jsonl", N)
        rubric = cache_rubric(tmp_path / "r.yaml", server.api_base, judges=1)
        run_ok(rubric, data, "--out", tmp_path / "warm", "--limit", "20")
        server.reset()
        exp = tmp_path / "exp"
        proc = start_cli("run", rubric, data, "--out", exp)
        assert wait_for_lines(exp / "items.jsonl", 25, proc, limit=60)
        proc.kill()
        proc.wait()
        recorded = {line["id"] for line in valid_lines(exp / "items.jsonl")}
        seen = server.request_count
        result = cli("resume", exp)
        assert result.exit_code == 0, result.stderr
        assert "warning" not in result.stderr
        later = "\n".join(r.text() for r in server.requests[seen:])
        assert not any(token(int(i[2:])) in later for i in recorded)
        everything = "\n".join(r.text() for r in server.requests)
        assert not any(token(i) in everything for i in range(20))  # served by the cache
        lines = valid_lines(exp / "items.jsonl")
        assert sorted(line["id"] for line in lines) == [f"it{i:04d}" for i in range(N)]
        info = cli("cache", "info", "--format", "json")
        assert info.exit_code == 0, info.stderr
        assert json.loads(info.stdout)["entries"] == N * 4


def test_a_corrupt_cache_warns_once_and_the_run_goes_on(
    tmp_path: Path, isolated_call_cache: Path
) -> None:
    with JudgeServer() as server:
        data = write_dataset(tmp_path / "data.jsonl", 10)
        rubric = cache_rubric(tmp_path / "r.yaml", server.api_base, judges=1)
        run_ok(rubric, data, "--out", tmp_path / "a")
        path = isolated_call_cache / "calls.sqlite3"
        with path.open("r+b") as handle:
            handle.write(b"\xde\xad\xbe\xef" * 64)
        server.reset()
        stderr = run_ok(rubric, data, "--out", tmp_path / "b")
        assert stderr.count("call cache") == 1 and "unusable" in stderr
        assert server.request_count == 10 * 4
    a, b = by_id(tmp_path / "a"), by_id(tmp_path / "b")
    assert {k: without_cache_marks(v) for k, v in a.items()} == {
        k: without_cache_marks(v) for k, v in b.items()
    }
    assert not any(v["cached"] for r in b.values() for c in r["criteria"] for v in c["votes"])


def test_dry_run_bills_exactly_what_the_run_then_sends(
    tmp_path: Path, isolated_call_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from autorubric_cli.experiment.dry_run import dry_run_start
    from autorubric_cli.experiment.session import RunOptions
    from autorubric_cli.judges.transports.litellm import load_litellm

    litellm = load_litellm()
    with JudgeServer() as server:
        data = write_dataset(tmp_path / "data.jsonl", 6)
        rubric = cache_rubric(tmp_path / "r.yaml", server.api_base)
        out = tmp_path / "a"
        cold = cli("run", rubric, data, "--out", out, "--dry-run", "--format", "json")
        assert cold.exit_code == 0, cold.stderr
        bill = json.loads(cold.stdout)
        assert server.request_count == 0 and not out.exists()
        assert not (isolated_call_cache / "calls.sqlite3").exists()
        assert bill["calls"] == {"total": 6 * 4 * 2, "cached": 0, "to_send": 6 * 4 * 2}
        run_ok(rubric, data, "--out", out, "--limit", "3")
        counted = {"j0": 0, "j1": 0}
        for r in server.requests:  # the judge's model string, as configured: "openai/..."
            model = "openai/" + r.model
            counted[f"j{MODELS.index(model)}"] += litellm.token_counter(
                model=model, messages=r.messages
            )
        sent = sum(counted.values())
        # the first 3 items were sent: the bill of the full run counts exactly those + 3 more
        resumed = cli("resume", out, "--dry-run", "--format", "json")
        assert resumed.exit_code == 0, resumed.stderr
        rest = json.loads(resumed.stdout)
        assert rest["calls"] == {"total": 0, "cached": 0, "to_send": 0}  # --limit 3 is recorded
        assert bill["prompt_tokens"] > sent > 0
        fresh = tmp_path / "b"  # `out` is taken now: `run` (and its dry run) would refuse it
        warm = json.loads(
            cli("run", rubric, data, "--out", fresh, "--dry-run", "-f", "json").stdout
        )
        assert warm["calls"] == {"total": 48, "cached": 24, "to_send": 24}
        assert warm["prompt_tokens"] == bill["prompt_tokens"] - sent
        assert [j["prompt_tokens"] for j in bill["judges"]] == [
            counted[j["id"]] + w["prompt_tokens"]
            for j, w in zip(bill["judges"], warm["judges"], strict=True)
        ]
        for line in (bill, *bill["judges"]):
            assert line["cost_estimate"] > 0
        unpriced = cache_rubric(
            tmp_path / "u.yaml", server.api_base, judges=1, judge_extra={0: {"model": "openai/x"}}
        )
        monkeypatch.setenv(KEY_ENV, KEY_VALUE)  # the dry run checks key variables like `run`
        free = dry_run_start(unpriced, data, RunOptions())  # in process: one CLI start less
        assert free["cost_estimate"] is None and free["judges"][0]["cost_estimate"] is None
        table = cli("run", unpriced, data, "--dry-run")
        assert table.exit_code == 0 and "n/a" in table.stdout
        assert server.request_count == 24


def test_cache_info_prune_and_clear(tmp_path: Path, isolated_call_cache: Path) -> None:
    with JudgeServer() as server:
        data = write_dataset(tmp_path / "data.jsonl", 3)
        rubric = cache_rubric(tmp_path / "r.yaml", server.api_base)
        run_ok(rubric, data, "--out", tmp_path / "a")
        run_ok(rubric, data, "--out", tmp_path / "b")
    info = json.loads(cli("cache", "info", "-f", "json").stdout)
    assert info["entries"] == 24 and info["hits"] == 24 and info["size_bytes"] > 0
    assert [(m["model"], m["entries"]) for m in info["models"]] == [
        (MODELS[0], 12),
        (MODELS[1], 12),
    ]
    assert "pruned 0 entries" in cli("cache", "prune", "--older-than", "30d").stdout
    assert "pruned 24 entries" in cli("cache", "prune", "--older-than", "0s").stdout
    bad = cli("cache", "prune", "--older-than", "soon")
    assert bad.exit_code == 2 and "--older-than" in bad.stderr
    assert cli("cache", "clear").exit_code == 0
    assert not (isolated_call_cache / "calls.sqlite3").exists()
