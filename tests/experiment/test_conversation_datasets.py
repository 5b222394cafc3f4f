"""A conversation dataset (support chats, an agent run with tool calls, a reasoning model's
turns) through the features that must work unchanged on it: the call cache, batches (OpenAI's
on the loopback server, Claude's and Gemini's on their fakes), shards and merge, SIGKILL and
resume, compare and validate."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.support.conversations import CONVERSATIONS, RUBRIC, message_texts
from tests.support.experiment.batch import comparable, fast_batches, processed
from tests.support.experiment.cache import CRITERIA, by_id, cache_rubric, without_cache_marks
from tests.support.experiment.provider_batch import FAKES, offline, provider_rubric, run_here
from tests.support.experiment.runs import (
    assert_nothing_lost_nothing_rejudged,
    ok,
    server_rubric,
    sigkill_and_resume,
    token,
    untimed_records,
)
from tests.support.judge_server import JudgeServer, scripted_verdicts

N = 12
KINDS = list(CONVERSATIONS)


def conversation(i: int) -> list[dict[str, Any]]:
    """Item i's messages: the i-th kind of conversation, its last message marked `token(i)`."""
    messages = copy.deepcopy(CONVERSATIONS[KINDS[i % len(KINDS)]])
    messages[-1]["content"] = f"{messages[-1]['content']} {token(i)}"
    return messages


def conversation_dataset(path: Path, n: int, criterion: str = "correct") -> Path:
    """`it0000` ... with every kind of conversation, as a list and as `{"messages": [...]}`;
    ground truth and three human ratings of `criterion`."""
    rows = []
    for i in range(n):
        messages = conversation(i)
        rows.append(
            {
                "id": f"it{i:04d}",
                "submission": {"messages": messages} if i % 2 else messages,
                "ground_truth": {criterion: "MET" if i % 3 else "UNMET"},
                "human_ratings": {criterion: ["MET", "MET" if i % 4 else "UNMET", "MET"]},
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def report(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / "report.json").read_text())
    data.pop("experiment")
    return data


def assert_every_turn_in_order(requests: list[Any], n: int) -> None:
    """Each item's requests hold every text of its conversation, in order."""
    for i in range(n):
        texts = [r.text() for r in requests if token(i) in r.text()]
        assert texts, f"no request for item {i}"
        for text in texts:
            at = 0
            for part in message_texts(conversation(i)):
                at = text.find(part, at)
                assert at >= 0, (i, part)


def test_the_second_run_is_served_from_the_call_cache(tmp_path: Path) -> None:
    with JudgeServer() as server:
        data = conversation_dataset(tmp_path / "data.jsonl", N)
        rubric = cache_rubric(tmp_path / "r.yaml", server.api_base, judges=2)
        ok("run", rubric, data, "--out", tmp_path / "a")
        assert server.request_count == N * len(CRITERIA) * 2
        assert_every_turn_in_order(server.requests, N)
        server.reset()
        ok("run", rubric, data, "--out", tmp_path / "b")
        assert server.request_count == 0
    a, b = by_id(tmp_path / "a"), by_id(tmp_path / "b")
    assert len(a) == N and {k: without_cache_marks(v) for k, v in a.items()} == {
        k: without_cache_marks(v) for k, v in b.items()
    }
    votes = [v for r in b.values() for c in r["criteria"] for v in c["votes"]]
    assert votes and all(v["cached"] for v in votes)


def test_an_openai_batch_run_equals_the_direct_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast_batches(monkeypatch)
    with JudgeServer(batch_delay=0.1) as server:
        rubric = cache_rubric(tmp_path / "r.yaml", server.api_base, judges=1)
        data = conversation_dataset(tmp_path / "data.jsonl", N)
        ok("run", rubric, data, "--out", tmp_path / "direct", "--no-cache")
        server.reset()
        ok("run", rubric, data, "--out", tmp_path / "batch", "--batch", "--no-cache")
        assert server.request_count == len(server.batch_requests) == N * len(CRITERIA)
        assert set(processed(server).values()) == {1}
        assert_every_turn_in_order(server.batch_requests, N)
    reference = comparable(tmp_path / "direct")
    assert len(reference) == N and comparable(tmp_path / "batch") == reference


@pytest.mark.parametrize("provider", sorted(FAKES))
def test_a_provider_batch_run_equals_the_direct_run(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    offline(monkeypatch)
    fast_batches(monkeypatch)
    with FAKES[provider]() as server:
        rubric = provider_rubric(tmp_path / "rubric.yaml", provider, server.api_base)
        data = conversation_dataset(tmp_path / "data.jsonl", N)
        run_here(rubric, data, tmp_path / "direct", batch=False)
        direct = len(server.direct_requests)
        server.reset()
        run_here(rubric, data, tmp_path / "batch", batch=True)
        assert server.direct_requests == [] and len(server.batch_requests) == direct > 0
    reference = comparable(tmp_path / "direct")
    assert len(reference) == N and comparable(tmp_path / "batch") == reference


def test_merged_shards_equal_a_single_run(tmp_path: Path) -> None:
    rubric = tmp_path / "conversations.yaml"
    rubric.write_text(RUBRIC)
    data = conversation_dataset(tmp_path / "data.jsonl", N, "resolved")
    ok("run", rubric, data, "--out", tmp_path / "single", "--no-cache")
    shards = [tmp_path / f"s{k}" for k in (1, 2, 3)]
    for k, shard in enumerate(shards, start=1):
        ok("run", rubric, data, "--out", shard, "--shard", f"{k}/3", "--no-cache")
    assert all(0 < len(untimed_records(s)) < N for s in shards)
    ok("merge", tmp_path / "merged", *shards)
    merged, single = tmp_path / "merged", tmp_path / "single"
    assert report(merged) == report(single)
    assert untimed_records(merged) == sorted(untimed_records(single), key=lambda r: r["index"])


def test_sigkill_and_resume_lose_nothing_and_judge_nothing_twice(tmp_path: Path) -> None:
    n = 24
    with JudgeServer(latency=0.12) as server:
        rubric = server_rubric(tmp_path / "rubric.yaml", server.api_base, concurrency=3)
        data = conversation_dataset(tmp_path / "data.jsonl", n)
        ok("run", rubric, data, "--out", tmp_path / "reference", "--no-cache")
        server.reset()
        exp = tmp_path / "exp"
        snapshots = sigkill_and_resume([rubric, data], exp, server, random.Random(31), 3)
        requests = server.requests
    assert_nothing_lost_nothing_rejudged(exp, tmp_path / "reference", snapshots, requests, n)


def test_compare_pairs_the_conversations_and_finds_the_scripted_regression(
    tmp_path: Path,
) -> None:
    data = conversation_dataset(tmp_path / "data.jsonl", N)
    regressed = {0, 3, 5}
    with JudgeServer() as server:
        rubric = server_rubric(tmp_path / "rubric.yaml", server.api_base)
        for name, unmet in (("A", set()), ("B", regressed)):
            server.answer = scripted_verdicts(
                {
                    (token(i), "The answer is correct"): "UNMET" if i in unmet else "MET"
                    for i in range(N)
                }
            )
            ok("run", rubric, data, "--out", tmp_path / name, "--no-cache")
    result = json.loads(ok("compare", tmp_path / "A", tmp_path / "B", "--format", "json"))
    assert result["items"]["paired"] == N
    assert result["score"]["regressed"] == len(regressed)
    assert result["score"]["improved"] == 0


def test_validate_reads_the_human_ratings_of_a_conversation_dataset(tmp_path: Path) -> None:
    rubric = tmp_path / "conversations.yaml"
    rubric.write_text(RUBRIC)
    data = conversation_dataset(tmp_path / "data.jsonl", N, "resolved")
    ok("run", rubric, data, "--out", tmp_path / "exp", "--no-cache")
    body = json.loads(ok("validate", tmp_path / "exp", "--format", "json"))
    (criterion,) = body["criteria"]
    assert criterion["name"] == "resolved" and criterion["n_items"] == N
    assert criterion["ratings_per_item"] == {"min": 3, "mean": 3.0}
    assert {"careful", "hasty", "ensemble"} <= set(criterion["judges"])
