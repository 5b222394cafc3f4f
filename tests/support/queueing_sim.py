"""A discrete-event simulation of a judge's calls through an `AdaptiveLimit` (a fake clock, no
sleeps), for the tests and `bench/queueing_policy.py`: a client with a backlog sends while the
limit allows; a server with `slots` serves in arrival order and queues the rest (None: it serves
every call at once, as a hosted provider that scales does). Each call takes `service()` seconds
of the server's time."""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from autorubric_cli.judges.policy.adaptive import AdaptiveLimit


@dataclass
class Clock:
    now: float = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Simulation:
    """What happened: per call sent, how many were already at the server (served or queued);
    per answer, its latency and the limit after it; the time the last answer came."""

    waiting: list[int] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    limits: list[int] = field(default_factory=list)
    end: float = 0.0


def simulate(
    make_limit: Callable[[Clock], AdaptiveLimit],
    slots: int | None,
    calls: int,
    service: Callable[[], float],
) -> Simulation:
    clock = Clock()
    limit = make_limit(clock)
    seen = Simulation()
    events: list[tuple[float, int, int]] = []  # (answer time, order, call)
    order = itertools.count()
    queue: deque[int] = deque()
    sent_at: list[float] = []
    busy = in_flight = 0

    def serve(call: int) -> None:
        nonlocal busy
        busy += 1
        heapq.heappush(events, (clock.now + service(), next(order), call))

    while len(seen.latencies) < calls:
        while len(sent_at) < calls and in_flight < limit.current:
            seen.waiting.append(in_flight)
            in_flight += 1
            sent_at.append(clock.now)
            if slots is None or busy < slots:
                serve(len(sent_at) - 1)
            else:
                queue.append(len(sent_at) - 1)
        clock.now, _, call = heapq.heappop(events)
        busy -= 1
        if queue:
            serve(queue.popleft())
        seen.latencies.append(clock.now - sent_at[call])
        limit.answered(seen.latencies[-1], in_flight)
        in_flight -= 1
        seen.limits.append(limit.current)
    seen.end = clock.now
    return seen


class RefusalsOnly(AdaptiveLimit):
    """The adaptive limit blind to latency: the policy before the queue watch, which only a
    429 could bring down."""

    def answered(self, latency: float | None = None, in_flight: int = 1) -> None:
        super().answered(None, in_flight)
