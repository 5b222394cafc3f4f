"""Adaptive concurrency (AIMD): converges on the provider limit, never above the cap."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.policy.adaptive import DECREASE, INITIAL, AdaptiveLimit
from autorubric_cli.judges.policy.retry import RetryPolicy
from tests.support import BINARY, MULTI_CHOICE, http_judge, make_item, make_rubric
from tests.support.judge_server import JudgeServer


@dataclass
class Provider:
    """A fake provider that refuses (429) a call arriving while `limit` are in flight."""

    limit: int
    in_flight: int = 0
    peak: int = 0
    attempts: int = 0
    refused: int = 0


async def drive(adaptive: AdaptiveLimit, provider: Provider, calls: int) -> list[int]:
    """Send `calls` calls through the limit; a refused call is retried. Returns the limit seen
    after each answer."""
    seen: list[int] = []

    async def one() -> None:
        while True:
            async with adaptive as epoch:
                provider.attempts += 1
                if provider.in_flight >= provider.limit:
                    provider.refused += 1
                    adaptive.overloaded(epoch)
                    await asyncio.sleep(0.002)  # Retry-After
                    continue
                provider.in_flight += 1
                provider.peak = max(provider.peak, provider.in_flight)
                await asyncio.sleep(0.002)
                provider.in_flight -= 1
                adaptive.answered()
                seen.append(adaptive.current)
                return

    await asyncio.gather(*(one() for _ in range(calls)))
    return seen


@pytest.mark.parametrize("provider_limit", [3, 8, 20])
async def test_converges_on_the_provider_limit_with_few_refusals(provider_limit: int) -> None:
    adaptive = AdaptiveLimit(64)
    provider = Provider(provider_limit)
    seen = await drive(adaptive, provider, 1500)
    settled = seen[len(seen) // 2 :]
    assert min(settled) >= int(provider_limit * DECREASE)
    assert max(settled) <= provider_limit + 1
    assert sum(settled) / len(settled) >= 0.85 * provider_limit
    assert provider.refused / provider.attempts <= 0.10


async def test_the_configured_cap_is_a_maximum() -> None:
    adaptive = AdaptiveLimit(12)
    assert adaptive.current == min(12, INITIAL)
    provider = Provider(100)
    seen = await drive(adaptive, provider, 300)
    assert max(seen) == 12 and provider.peak == 12 and provider.refused == 0


async def test_without_adaptation_the_cap_is_used_as_is() -> None:
    adaptive = AdaptiveLimit(30, adaptive=False)
    provider = Provider(10)
    await drive(adaptive, provider, 200)
    assert adaptive.current == 30 and provider.refused > 0


def test_one_decrease_per_window() -> None:
    adaptive = AdaptiveLimit(64)
    for _ in range(24):
        adaptive.answered()
    assert adaptive.current == 32
    epoch = adaptive.epoch
    for _ in range(5):  # five 429s of calls sent in the same window: one overload
        adaptive.overloaded(epoch)
    assert adaptive.current == int(32 * DECREASE)
    adaptive.overloaded(adaptive.epoch)  # a call sent after the decrease: a new overload
    assert adaptive.current == int(32 * DECREASE * DECREASE)


async def test_a_run_set_to_64_against_a_limit_of_8_records_everything(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    server = judge_server_factory(latency=0.03, concurrency_limit=8, retry_after=1)
    judge = http_judge(server.api_base, max_concurrency=64)
    rubric = make_rubric([judge], [BINARY, MULTI_CHOICE, {**BINARY, "name": "b2"}], concurrency=64)
    policy = RetryPolicy(base_s=0.05, cap_s=0.5, retry_after_cap_s=5.0)
    engine = CriterionGrader(rubric, seed=2, retry=policy)
    try:
        records = await asyncio.gather(
            *(engine.grade(make_item(f"i{k}", f"answer {k}", k)) for k in range(120))
        )
    finally:
        await engine.aclose()
    assert all(r.status == "ok" for r in records)
    stats = engine.stats
    assert stats.votes == 360 and stats.error_votes == 0
    assert server.max_in_flight <= 8
    assert stats.retries == server.stats.rejected > 0  # it did find the limit by hitting it
    assert stats.retries <= 0.15 * stats.calls_started
    now, cap = stats.concurrency["openai/loopback"]
    # found the limit and stayed near it (it may creep past it while a loaded client keeps
    # fewer than 8 calls in flight; only a 429 brings it down): far from the configured 64
    assert cap == 64 and now < 16
