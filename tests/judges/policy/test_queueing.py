"""A server that queues instead of refusing: the adaptive limit settles near its capacity.

The policy is driven by a discrete-event simulation (a fake clock, no sleeps): a client with a
backlog of calls sends while the limit allows, a server with `slots` serves in arrival order
and queues the rest. Then the same over HTTP, against the loopback server's `slots` mode.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.policy.adaptive import AdaptiveLimit
from autorubric_cli.judges.policy.queueing import Window, queue_limit, queued
from autorubric_cli.judges.policy.retry import RetryPolicy
from tests.support import BINARY, MULTI_CHOICE, http_judge, make_item, make_rubric
from tests.support.judge_server import JudgeServer
from tests.support.queueing_sim import RefusalsOnly, Simulation, simulate

PATTERN = [1.0, 0.8, 1.2, 0.9, 1.1]  # seconds a call takes at the server, in turn


def run(
    slots: int | None, calls: int, limit_class: type[AdaptiveLimit] = AdaptiveLimit
) -> Simulation:
    service = itertools.cycle(PATTERN).__next__
    return simulate(lambda clock: limit_class(64, clock=clock), slots, calls, service)


def settled(values: list[int]) -> list[int]:
    return values[len(values) // 2 :]


def test_a_one_slot_server_settles_near_one_call_in_flight() -> None:
    seen = run(slots=1, calls=400)
    assert max(seen.limits) >= 16  # slow start went up before the queue showed
    assert max(settled(seen.limits)) <= 4 and max(settled(seen.waiting)) <= 3


def test_a_four_slot_server_settles_near_four_and_keeps_them_busy() -> None:
    seen = run(slots=4, calls=600)
    assert min(settled(seen.limits)) >= 4 and max(settled(seen.limits)) <= 8


def test_a_provider_that_scales_is_never_cut() -> None:
    seen = run(slots=None, calls=1000)
    assert set(settled(seen.limits)) == {64} and min(seen.limits) >= 8  # never cut


def test_the_old_policy_climbs_to_its_maximum_on_the_same_server() -> None:
    """Without latencies (the policy before queueing.py) only a 429 could bring it down."""
    blind = run(slots=1, calls=400, limit_class=RefusalsOnly)
    assert set(settled(blind.limits)) == {64} and max(blind.waiting) >= 60


def test_the_queueing_rule_on_hand_cases() -> None:
    one = Window(in_flight=4.0, throughput=1.0, latency=4.0)
    assert queued(one, Window(8.0, 1.05, 8.0)) is True  # twice the calls, the same throughput
    assert queued(one, Window(8.0, 1.9, 4.2)) is False  # twice the calls, nearly twice the answers
    assert queued(one, Window(4.5, 0.5, 9.0)) is None  # slower, but as many calls: cannot tell
    assert queue_limit(32.0, throughput=1.0, no_load_latency=1.0) == 8.0  # a quarter, at least
    assert queue_limit(6.0, throughput=1.0, no_load_latency=1.0) == 2.0  # 1 busy + 1 waiting
    assert queue_limit(12.0, throughput=4.0, no_load_latency=1.0) == 6.0  # 4 busy + 2 waiting


FAST = RetryPolicy(base_s=0.01, cap_s=0.05, retry_after_cap_s=1.0)


async def test_over_http_a_one_slot_server_is_not_flooded(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    """The loopback server's `slots` mode, graded through the real call path: the limit is cut
    by a queueing verdict, and the requests sent after the cut find a short queue."""
    server = judge_server_factory(slots=1, latency=0.02)
    rubric = make_rubric(
        [http_judge(server.api_base, max_concurrency=16)],
        [BINARY, MULTI_CHOICE, {**BINARY, "name": "b2"}],
        concurrency=64,
    )
    warm = CriterionGrader(rubric, seed=3, retry=FAST)  # this process's one-off start-up costs
    await warm.grade(make_item("warm-up"))
    await warm.aclose()
    server.reset()
    engine = CriterionGrader(rubric, seed=3, retry=FAST)
    (judge,) = engine.judges
    batches = 0
    try:
        while judge.slots.epoch == 0 and batches < 12:  # 12: a hang guard, it takes one or two
            items = (make_item(f"i{batches}-{k}", f"answer {k}", k) for k in range(12))
            records = await asyncio.gather(*(engine.grade(item) for item in items))
            assert all(r.status == "ok" for r in records)
            batches += 1
        cut_at = len(server.requests)
        records = await asyncio.gather(
            *(engine.grade(make_item(f"after-{k}", f"answer {k}", k)) for k in range(12))
        )
    finally:
        await engine.aclose()
    assert judge.slots.epoch >= 1 and server.stats.rejected == 0  # cut; never refused
    waiting = [r.waiting for r in server.requests]
    assert max(waiting[:cut_at]) >= 12  # slow start went up before the queue showed
    assert max(waiting[cut_at:]) <= 7  # after the cut, a short queue
    assert all(r.status == "ok" for r in records)
