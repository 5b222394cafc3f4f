"""Batches for Claude and Gemini (docs/guides/batches.md): the same records as a direct run, at the
batch price; expired, failed and cancelled requests; against the loopback Anthropic and Gemini
fakes, in this process."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.support.batch_fake import BatchFake, Processed
from tests.support.experiment.batch import comparable, fast_batches, ledger_events
from tests.support.experiment.provider_batch import (
    FAKES,
    bodies,
    offline,
    provider_rubric,
    run_here,
)
from tests.support.experiment.runs import valid_lines, write_dataset

PROVIDERS = sorted(FAKES)


def vote_costs(directory: Path) -> dict[tuple[str, str, int], float | None]:
    return {
        (line["id"], c["name"], v["sample"]): v["cost"]
        for line in valid_lines(directory / "items.jsonl")
        for c in line["criteria"]
        for v in c["votes"]
    }


def direct_and_batch(
    tmp_path: Path, server: BatchFake, provider: str, items: int, **grader: Any
) -> tuple[list[Processed], list[Processed]]:
    """A direct run then a batch run of the same rubric and data on `server`; the requests
    each one made."""
    rubric = provider_rubric(tmp_path / "rubric.yaml", provider, server.api_base, **grader)
    data = write_dataset(tmp_path / "data.jsonl", items)
    run_here(rubric, data, tmp_path / "direct", batch=False)
    direct = server.direct_requests
    server.reset()
    run_here(rubric, data, tmp_path / "batch", batch=True)
    assert server.direct_requests == []  # a batch run calls nothing directly
    return direct, server.batch_requests


@pytest.mark.parametrize("provider", PROVIDERS)
def test_batch_run_equals_direct_run_at_the_batch_price(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Faults hit the k-th copy of a request in both modes, so the batch run (with follow-up
    batches for the failed requests) reaches the direct run's votes, attempts included; every
    batched request is byte for byte the body litellm sent directly."""
    offline(monkeypatch)
    fast_batches(monkeypatch, MAX_REQUESTS=25)
    with FAKES[provider](batch_delay=0.05, fault_rate=0.15) as server:
        direct, batched = direct_and_batch(tmp_path, server, provider, 20)
        jobs = len(server.jobs)

    assert comparable(tmp_path / "batch") == comparable(tmp_path / "direct")
    assert bodies(batched) == bodies(direct)  # same requests, same number of attempts
    assert sum(p.fault is not None for p in batched) > 3  # follow-ups were needed
    assert jobs > -(-20 * 3 // 25)  # more batches than the first round: follow-ups
    direct_costs, batch_costs = vote_costs(tmp_path / "direct"), vote_costs(tmp_path / "batch")
    assert direct_costs.keys() == batch_costs.keys()
    for vote, cost in direct_costs.items():  # litellm's `*_batches` prices: half the list
        assert cost is not None and batch_costs[vote] == pytest.approx(cost / 2, rel=1e-9)
    events = ledger_events(tmp_path / "batch")
    prepared = [e for e in events if e["event"] == "prepared"]
    assert len(prepared) == jobs and all(len(e["requests"]) <= 25 for e in prepared)
    assert not [e for e in events if e["event"] == "abandoned"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_per_item_calls_and_samples_batch_like_direct_ones(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One call per item (docs/guides/per-item.md) with 2 samples and thinking on (no temperature,
    as the providers require with thinking): identical requests of two samples are two batch
    requests (their keys differ by sample), answered as the direct calls were, thinking recorded."""
    offline(monkeypatch)
    fast_batches(monkeypatch)
    judge = {"samples": 2, "temperature": None, "thinking": 1024}
    with FAKES[provider](batch_delay=0.05) as server:
        direct, batched = direct_and_batch(
            tmp_path, server, provider, 6, llm_calls="per_item", judge_extra=judge
        )
    assert len(direct) == 6 * 2 and bodies(batched) == bodies(direct)
    assert comparable(tmp_path / "batch") == comparable(tmp_path / "direct")
    votes = [
        v
        for r in comparable(tmp_path / "batch").values()
        for c in r["criteria"]
        for v in c["votes"]
    ]
    assert len(votes) == 6 * 3 * 2 and not any(v["error"] for v in votes)
    thinking = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    if provider == "anthropic":  # the fake answers thinking blocks; litellm records them
        assert all(json.loads(b).items() >= thinking.items() for b in bodies(batched))
        paying = [v for v in votes if v["billed_with"] is None]  # one vote per shared call
        assert len(paying) == 6 * 2 and all(v["thinking"] == "weighing it" for v in paying)
    else:
        assert all('"thinkingConfig"' in b for b in bodies(batched))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_expired_requests_are_sent_again_once(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first batch expires (Anthropic: its second half `expired`; Gemini: the whole batch,
    BATCH_STATE_EXPIRED, no responses); what it did not answer goes into a new batch, once."""
    offline(monkeypatch)
    fast_batches(monkeypatch, SEND_DELAY_S=0.5)
    with FAKES[provider](batch_delay=0.05, expire_batches=1) as server:
        direct, batched = direct_and_batch(tmp_path, server, provider, 8)
        jobs = list(server.jobs.values())

    assert bodies(batched) == bodies(direct)  # nothing answered twice, nothing lost
    assert [j.expire for j in jobs] == [True] + [False] * (len(jobs) - 1)
    first = len(jobs[0].requests)  # all 24 unless the machine is slow to queue them
    expired = first if provider == "gemini" else first - (first + 1) // 2
    assert expired > 0
    attempts = Counter(
        v["attempts"]
        for r in valid_lines(tmp_path / "batch" / "items.jsonl")
        for c in r["criteria"]
        for v in c["votes"]
    )
    assert attempts == Counter({1: 24 - expired, 2: expired})

    def no_attempts(directory: Path) -> dict:
        records = comparable(directory)
        for record in records.values():
            for criterion in record["criteria"]:
                for vote in criterion["votes"]:
                    vote.pop("attempts")
        return records

    assert no_attempts(tmp_path / "batch") == no_attempts(tmp_path / "direct")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_batch_cancelled_at_the_provider_gives_error_votes(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone cancels the batch: its requests become error votes, not retried (on purpose)."""
    offline(monkeypatch)
    fast_batches(monkeypatch, SEND_DELAY_S=0.5)
    with FAKES[provider](batch_delay=60.0) as server:
        rubric = provider_rubric(tmp_path / "rubric.yaml", provider, server.api_base)
        data = write_dataset(tmp_path / "data.jsonl", 3)
        finished = threading.Event()

        def cancel() -> None:
            """Cancel every batch as it appears, through the provider's cancel endpoint."""
            done: set[str] = set()
            while not finished.is_set():
                for job in [j for j in list(server.jobs.values()) if j.id not in done]:
                    path = {"anthropic": f"/v1/messages/batches/{job.id}/cancel"}.get(
                        provider, f"/v1beta/{job.id}:cancel"
                    )
                    request = urllib.request.Request(server.url + path, method="POST", data=b"")
                    urllib.request.urlopen(request).read()
                    job.ready_at = 0.0
                    done.add(job.id)
                time.sleep(0.01)

        canceller = threading.Thread(target=cancel)
        canceller.start()
        try:
            run_here(rubric, data, tmp_path / "exp", batch=True)
        finally:
            finished.set()
            canceller.join()
        processed = server.processed

    assert processed == []
    errors = Counter(
        v["error"]
        for r in valid_lines(tmp_path / "exp" / "items.jsonl")
        for c in r["criteria"]
        for v in c["votes"]
    )
    assert sum(errors.values()) == 9 and len(errors) == 1
    assert "cancelled without an answer" in next(iter(errors))
