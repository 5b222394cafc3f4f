"""Samples in one request, end to end against the loopback OpenAI server: one request per
prompt carries `n`, the call cache holds each sample (a `separate` run, and the other way
round, is served), a batch line carries `n` too, `resume --retry-errors` asks the samples
still missing together, a run killed mid-way and resumed loses nothing and asks nothing twice,
and the progress line counts requests and error votes as the report does."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.experiment.test_progress_matches_report import figure, last_progress
from tests.support.cli import cli
from tests.support.experiment.batch import fast_batches
from tests.support.experiment.cache import judge
from tests.support.experiment.cascade import records
from tests.support.experiment.criteria import CORRECT, HARMFUL, style
from tests.support.experiment.runs import (
    assert_nothing_lost_nothing_rejudged,
    server_rubric,
    sigkill_and_resume,
    write_dataset,
)
from tests.support.judge_server import JudgeServer
from tests.support.judge_server.answers import default_answer

N = 6
SAMPLES = 3


def rubric(
    path: Path,
    api_base: str,
    *,
    criteria: list[dict[str, Any]],
    max_attempts: int = 1,
    **extra: Any,
) -> Path:
    grader = {
        "judges": [judge(api_base, 0, samples=SAMPLES, **extra)],
        "max_attempts": max_attempts,
        "retry": {"initial_wait": 0.01, "max_wait": 0.05, "max_retry_after": 0.3},
    }
    path.write_text(yaml.safe_dump({"criteria": criteria, "grader": grader}))
    return path


def ok(*args: str | Path, code: int = 0) -> None:
    result = cli(*args)
    assert result.exit_code == code, result.stderr


def answers(directory: Path) -> dict[tuple[str, str, int], tuple[Any, Any, Any]]:
    """(item, criterion, sample) -> (verdict, option index, reason)."""
    return {
        (item, c["name"], v["sample"]): (v["verdict"], v["option_index"], v["reason"])
        for item, record in records(directory).items()
        for c in record["criteria"]
        for v in c["votes"]
    }


def test_one_request_per_prompt_and_the_cache_serves_each_sample(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", N)
    criteria = [CORRECT, HARMFUL, style()]
    cache = ("--cache-dir", tmp_path / "cache")
    with JudgeServer() as server:
        one = rubric(tmp_path / "one.yaml", server.api_base, criteria=criteria)
        ok("run", one, data, "--out", tmp_path / "one", *cache)
        sent = server.requests
        binary = [r for r in sent if "Fill criterion_status" in r.text()]
        assert len(binary) == N * 2 and all(r.body["n"] == SAMPLES for r in binary)
        # the multi-choice criterion's samples are shown their own option orders: one request
        # per order shown, each asking for the samples shown it
        shown = [r for r in sent if r not in binary]
        assert sum(r.body.get("n", 1) for r in shown) == N * SAMPLES
        server.reset()
        separate = rubric(
            tmp_path / "separate.yaml",
            server.api_base,
            criteria=criteria,
            sample_request="separate",
        )
        ok("run", separate, data, "--out", tmp_path / "separate", *cache)
        assert server.request_count == 0  # every sample's answer is in the cache
    assert answers(tmp_path / "separate") == answers(tmp_path / "one")
    served = records(tmp_path / "separate").values()
    assert all(vote["cached"] for r in served for c in r["criteria"] for vote in c["votes"])


def test_a_separate_run_serves_a_later_one_request_run(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", N)
    cache = ("--cache-dir", tmp_path / "cache")
    with JudgeServer() as server:
        separate = rubric(
            tmp_path / "s.yaml", server.api_base, criteria=[CORRECT], sample_request="separate"
        )
        ok("run", separate, data, "--out", tmp_path / "separate", *cache)
        assert server.request_count == N * SAMPLES
        assert all("n" not in r.body for r in server.requests)
        server.reset()
        one = rubric(tmp_path / "o.yaml", server.api_base, criteria=[CORRECT])
        ok("run", one, data, "--out", tmp_path / "one", *cache)
        assert server.request_count == 0
    assert answers(tmp_path / "one") == answers(tmp_path / "separate")


def test_resume_asks_the_missing_samples_together(tmp_path: Path) -> None:
    """A server that returns one choice whatever `n` asks, with one attempt a sample: sample 0
    is answered and the others fail; `resume --retry-errors` keeps sample 0 and asks for the
    other two in one request."""
    data = write_dataset(tmp_path / "data.jsonl", N)
    with JudgeServer(choice_limit=1) as server:
        path = rubric(tmp_path / "r.yaml", server.api_base, criteria=[CORRECT, HARMFUL])
        ok("run", path, data, "--out", tmp_path / "exp", "--no-cache", code=3)
        assert server.request_count == N * 2 and all(r.body["n"] == 3 for r in server.requests)
        broken = answers(tmp_path / "exp")
        failed = [
            v for r in records(tmp_path / "exp").values() for c in r["criteria"] for v in c["votes"]
        ]
        assert {v["sample"] for v in failed if v["error"] is None} == {0}
        assert all(
            v["error"].startswith("parse: the reply held fewer choices")
            for v in failed
            if v["sample"] > 0
        )
        server.reset()
        server.choice_limit = None
        ok("resume", tmp_path / "exp", "--retry-errors", "--no-cache")
        assert server.request_count == N * 2 and all(r.body["n"] == 2 for r in server.requests)
    resumed = answers(tmp_path / "exp")
    assert all(v[0] is not None for v in resumed.values())
    assert {k: v for k, v in resumed.items() if k[2] == 0} == {
        k: v for k, v in broken.items() if k[2] == 0
    }


def test_a_run_killed_mid_way_and_resumed_loses_nothing_and_asks_nothing_twice(
    tmp_path: Path,
) -> None:
    """SIGKILLed twice at random moments and resumed: every item once, its votes those of an
    uninterrupted run, no recorded item asked again, and every request for a binary
    criterion's samples carries all of them (`n`: the call cache stores a reply's choices
    together, so a resumed item's samples are held or asked all at once)."""
    items = 24
    data = write_dataset(tmp_path / "data.jsonl", items)
    with JudgeServer(latency=0.05) as server:
        path = server_rubric(
            tmp_path / "r.yaml", server.api_base, concurrency=3, judge_extra="\n      samples: 3"
        )
        ok("run", path, data, "--out", tmp_path / "reference", "--no-cache")
        server.reset()
        snapshots = sigkill_and_resume([path, data], tmp_path / "exp", server, random.Random(45), 2)
        requests = server.requests
    assert_nothing_lost_nothing_rejudged(
        tmp_path / "exp", tmp_path / "reference", snapshots, requests, items
    )
    binary = [r for r in requests if "Fill criterion_status" in r.text()]
    assert binary and all(r.body["n"] == SAMPLES for r in binary)


def test_progress_and_report_count_requests_and_error_votes_alike(tmp_path: Path) -> None:
    """A server that returns one choice whatever `n` asks, and fails some requests: with two
    attempts a sample, the third sample of each criterion always runs out (an error vote the
    reply left short), and a request whose attempts all fail errs every sample it asked for.
    The progress line and the report agree on both counts; retries are per request: every
    request beyond the first of each criterion's samples."""
    data, out = write_dataset(tmp_path / "data.jsonl", N), tmp_path / "exp"
    faults = {"fault_rate": 0.3, "fault_kinds": ("server_error",), "fault_seed": 5}
    with JudgeServer(choice_limit=1, **faults) as server:
        path = rubric(
            tmp_path / "r.yaml", server.api_base, criteria=[CORRECT, HARMFUL], max_attempts=2
        )
        result = cli("run", path, data, "--out", out, "--format", "json", "--no-cache")
        requests = server.request_count
    assert result.exit_code == 3, result.stderr
    report, line = json.loads(result.stdout), last_progress(result.stderr)
    assert int(figure(line, "retries")) == report["retries"] == requests - N * 2
    assert int(figure(line, "error votes")) == report["error_votes"] >= N * 2


def test_an_openai_batch_run_carries_n_and_equals_the_direct_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each batch line asks for a criterion's samples together, as a direct request does, and
    the batch run's votes are the direct run's."""
    fast_batches(monkeypatch)
    data = write_dataset(tmp_path / "data.jsonl", N)
    with JudgeServer(batch_delay=0.1) as server:
        path = rubric(tmp_path / "r.yaml", server.api_base, criteria=[CORRECT, HARMFUL])
        ok("run", path, data, "--out", tmp_path / "direct", "--no-cache")
        server.reset()
        ok("run", path, data, "--out", tmp_path / "batch", "--batch", "--no-cache")
        lines = server.batch_requests
        assert len(lines) == server.request_count == N * 2
        assert all(line.body["n"] == SAMPLES for line in lines)
    assert answers(tmp_path / "batch") == answers(tmp_path / "direct")


def test_a_follow_up_for_unusable_choices_is_a_temperature_step_hotter(tmp_path: Path) -> None:
    """The second choice of every first request is not JSON: its sample is asked again alone,
    at the judge's temperature plus `reask_temperature_step` (as a re-ask is), and its vote
    records that temperature; the others keep the judge's own."""
    data = write_dataset(tmp_path / "data.jsonl", 4)

    def answer(body: dict[str, Any]) -> str:
        unusable = body.get("choice") == 1 and body.get("temperature") == 0.0
        return "not json {" if unusable else default_answer(body)

    with JudgeServer(answer=answer) as server:
        path = rubric(tmp_path / "r.yaml", server.api_base, criteria=[CORRECT], max_attempts=2)
        ok("run", path, data, "--out", tmp_path / "exp", "--no-cache")
        sent = [(r.body.get("n", 1), r.body["temperature"]) for r in server.requests]
    assert sorted(sent) == [(1, 0.3)] * 4 + [(SAMPLES, 0.0)] * 4
    votes = [v for r in records(tmp_path / "exp").values() for v in r["criteria"][0]["votes"]]
    assert all(v["error"] is None for v in votes)
    assert {v["sample"]: v.get("temperature") for v in votes} == {0: None, 1: 0.3, 2: None}
