"""Pairwise judging through the run's engine, over HTTP to the loopback fakes: `--swap random`
halves the calls, provider prompt caching of the two answers, the spend cap and resume, shards
and merge."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.support import TEST_KEY_ENV
from tests.support.cli import cli
from tests.support.experiment.batch import fast_batches
from tests.support.experiment.cache import judge
from tests.support.experiment.pairwise import (
    CRITERIA,
    server_rubric,
    simulated_rubric,
    systems,
    write_system,
)
from tests.support.judge_server import JudgeServer
from tests.support.prompt_cache import AnthropicPromptCache
from tests.support.providers.anthropic import AnthropicFake

LONG = " ".join(f"w{i}" for i in range(1200))


def records(directory: Path) -> list[dict]:
    return [json.loads(line) for line in (directory / "items.jsonl").read_text().splitlines()]


def test_random_swap_asks_half_the_calls_of_both_orders(
    tmp_path: Path, judge_server: JudgeServer, judge_api_key: str
) -> None:
    rubric = server_rubric(tmp_path / "r.yaml", judge_server.api_base)
    pair = systems(tmp_path, {"new": 0.9, "old": 0.1}, items=5)
    both = cli("pairwise", rubric, *pair, "--out", tmp_path / "both", "--no-cache", "-f", "json")
    assert both.exit_code == 0, both.stderr
    calls_both = judge_server.request_count
    judge_server.reset()
    one = cli(
        "pairwise", rubric, *pair, "--out", tmp_path / "one", "--no-cache", "--swap", "random"
    )
    assert one.exit_code == 0, one.stderr
    assert calls_both == 5 * 3 * 2 and judge_server.request_count == calls_both // 2
    orders = [
        v["order"] for r in records(tmp_path / "one") for q in r["questions"] for v in q["votes"]
    ]
    assert set(orders) == {"AB", "BA"}  # seeded per comparison: both occur
    report = json.loads(both.stdout)
    assert report["judges"][0]["order_pairs"] == 15
    one_report = json.loads(cli("report", tmp_path / "one", "-f", "json").stdout)
    assert one_report["judges"][0]["order_pairs"] == 0
    assert one_report["judges"][0]["order_consistency"] is None


@pytest.fixture
def anthropic_caching(monkeypatch: pytest.MonkeyPatch) -> Iterator[AnthropicFake]:
    monkeypatch.setenv("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "true")
    with AnthropicFake(latency=0.05, prompt_cache=AnthropicPromptCache()) as server:
        yield server


def test_the_two_answers_are_the_cached_prefix_and_the_first_answer_a_part_of_its_own(
    tmp_path: Path, anthropic_caching: AnthropicFake, judge_api_key: str
) -> None:
    base = anthropic_caching.api_base
    judge = (
        f"{{model: anthropic/claude-sonnet-4-5, id: claude, api_base: {base}, "
        f"api_key_env: {TEST_KEY_ENV}}}"
    )
    rubric = simulated_rubric(tmp_path / "r.yaml", judge, grader="  seed: 1\n")
    for name in ("x", "y", "z"):
        (tmp_path / f"{name}.jsonl").write_text(
            json.dumps({"id": "q1", "query": "Why?", "submission": f"{name} says {LONG}"}) + "\n"
        )
    systems_given = [tmp_path / f"{n}.jsonl" for n in "xyz"]
    result = cli("pairwise", rubric, *systems_given, "--out", tmp_path / "e")
    assert result.exit_code == 0, result.stderr
    groups: dict[str, list] = {}
    for request in anthropic_caching.requests:
        first, rest, question = request.body["messages"][0]["content"]
        assert first["text"].endswith("</response_a>\n\n") and rest["text"].endswith(
            "</response_b>\n\n"
        )
        assert first["cache_control"] == rest["cache_control"] == {"type": "ephemeral"}
        assert "cache_control" not in question
        groups.setdefault(first["text"] + rest["text"], []).append(request)
    assert len(groups) == 6  # three comparisons, two orders each
    by_first: dict[str, list] = {}
    for requests in groups.values():
        first, *others = sorted(requests, key=lambda r: r.received_at)
        assert len(others) == 2 and all(first.answered_at <= r.received_at for r in others)
        whole = first.usage["cache_creation_input_tokens"] + first.usage["cache_read_input_tokens"]
        assert [r.usage["cache_read_input_tokens"] for r in others] == [whole, whole]
        key = first.body["messages"][0]["content"][0]["text"]
        by_first.setdefault(key, []).append(first)
    for firsts in by_first.values():  # the two groups showing one answer first
        writer, reader = sorted(firsts, key=lambda r: r.received_at)
        assert writer.answered_at <= reader.received_at  # the reader waited for the write
        part = reader.usage["cache_read_input_tokens"]
        assert writer.usage["cache_read_input_tokens"] == 0 and part > 1200
        assert reader.usage["cache_creation_input_tokens"] == whole - part
    records_found = records(tmp_path / "e")
    votes = [v for r in records_found for q in r["questions"] for v in q["votes"]]
    assert sum(1 for v in votes if v["usage"].get("cached_prompt_tokens")) == 6 * 2 + 3


def test_the_spend_cap_stops_and_resume_with_a_higher_cap_finishes_paying_nothing_twice(
    tmp_path: Path, judge_server: JudgeServer, judge_api_key: str
) -> None:
    judge = (
        f"{{model: openai/gpt-4.1-mini, id: gpt, api_base: {judge_server.api_base}, "
        f"api_key_env: {TEST_KEY_ENV}, max_concurrency: 2}}"
    )
    rubric = simulated_rubric(tmp_path / "r.yaml", judge, grader="  concurrency: 2\n  workers: 0\n")
    pair = systems(tmp_path, {"new": 0.9, "old": 0.1}, items=8)
    full = cli(
        "pairwise", rubric, *pair, "--out", tmp_path / "full", "--cache-dir", tmp_path / "c1"
    )
    assert full.exit_code == 0, full.stderr
    cost = sum(r["cost"] for r in records(tmp_path / "full"))
    calls = judge_server.request_count
    judge_server.reset()
    out, cache = tmp_path / "capped", tmp_path / "c2"
    cap = f"{cost / 3:.8f}"
    stopped = cli("pairwise", rubric, *pair, "--out", out, "--cache-dir", cache, "--max-cost", cap)
    assert stopped.exit_code == 2 and "budget of" in stopped.stderr
    assert 0 < len(records(out)) < 8
    assert sum(r["cost"] for r in records(out)) <= float(cap)
    assert json.loads((out / "manifest.json").read_text())["status"] == "failed"
    resumed = cli("resume", out, "--cache-dir", cache, "--max-cost", str(cost * 2))
    assert resumed.exit_code == 0, resumed.stderr
    ids = [r["id"] for r in records(out)]
    assert len(ids) == len(set(ids)) == 8
    assert judge_server.request_count == calls  # the call cache kept what the capped run paid


def test_shards_merge_into_the_whole_comparison(tmp_path: Path) -> None:
    rubric = simulated_rubric(tmp_path / "r.yaml", "{model: simulated/a, id: a}", overall=True)
    three = systems(tmp_path, {"new": 0.9, "mid": 0.5, "old": 0.1}, items=6)
    whole = cli("pairwise", rubric, *three, "--out", tmp_path / "whole", "-f", "json")
    shards = [tmp_path / f"s{k}" for k in (1, 2)]
    for k, shard in enumerate(shards, start=1):
        part = cli("pairwise", rubric, *three, "--out", shard, "--shard", f"{k}/2")
        assert part.exit_code == 0, part.stderr
    assert 0 < len(records(shards[0])) < 18
    merged = cli("merge", tmp_path / "merged", *shards, "-f", "json")
    assert merged.exit_code == 0, merged.stderr
    expected, found = json.loads(whole.stdout), json.loads(merged.stdout)
    assert found["pairwise"] == expected["pairwise"]  # every figure: records, not their order
    assert found["comparisons"] == expected["comparisons"]
    other = write_system(tmp_path / "other.jsonl", "other", 6, 0.3)
    stranger = cli("pairwise", rubric, three[0], other, "--out", tmp_path / "s3", "--shard", "2/2")
    assert stranger.exit_code == 0
    refused = cli("merge", tmp_path / "mixed", shards[0], tmp_path / "s3")
    assert refused.exit_code == 2 and "systems compared" in refused.stderr


def test_a_batched_comparison_equals_the_direct_one_at_half_price(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast_batches(monkeypatch)
    with JudgeServer(batch_delay=0.2) as server:
        rubric = tmp_path / "r.yaml"
        rubric.write_text(
            yaml.safe_dump(
                {**yaml.safe_load(CRITERIA), "grader": {"judges": [judge(server.api_base, 0)]}}
            )
        )
        pair = systems(tmp_path, {"new": 0.9, "old": 0.1}, items=4)
        direct = cli(
            "pairwise", rubric, *pair, "--out", tmp_path / "direct", "--no-cache", "-f", "json"
        )
        assert direct.exit_code == 0, direct.stderr
        server.reset()
        batch = cli(
            "pairwise",
            rubric,
            *pair,
            "--out",
            tmp_path / "batch",
            "--batch",
            "--no-cache",
            "-f",
            "json",
        )
        assert batch.exit_code == 0, batch.stderr
        assert server.request_count == len(server.batch_requests) == 4 * 3 * 2

    def outcomes(directory: Path) -> dict:
        return {
            r["id"]: [
                (q["outcome"], [(v["order"], v["reply"]) for v in q["votes"]])
                for q in r["questions"]
            ]
            for r in records(directory)
        }

    assert outcomes(tmp_path / "batch") == outcomes(tmp_path / "direct")
    batched, direct_report = json.loads(batch.stdout), json.loads(direct.stdout)
    assert batched["pairwise"] == direct_report["pairwise"]
    assert batched["cost"] == pytest.approx(direct_report["cost"] / 2, rel=1e-6)
