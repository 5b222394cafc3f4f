"""Adaptive concurrency for one judge: find the provider's rate limit instead of fighting it.

AIMD, as TCP does for congestion: the limit starts at `min(maximum, INITIAL)`, grows by one
per answered call until the first 429 or overload (slow start); each such refusal multiplies it
by DECREASE (0.8, as Inspect does), at most once per window: the refusals of calls granted their
slot before the last decrease are the same overload, not a new one (a slot keeps the epoch it
was granted in, even when its task resumes after a decrease). Below the level where the last
refusal came (the ceiling), the limit climbs back by CLIMB (5 %) a window, at least one; within
one of the ceiling, PLATEAU times slower than one a window, as CUBIC does near its last maximum,
so the run sits just under the provider's limit and probes it rarely; past the ceiling, one a
window (the provider's limit rose). It never exceeds the configured `max_concurrency` nor drops
below 1. Measured by `bench/rate_limit.py`. Retry hints are honoured by the retry policy; this
only decides how many calls are in flight.
"""

from __future__ import annotations

import asyncio
from collections import deque

INITIAL = 8
DECREASE = 0.8
CLIMB = 0.05
PLATEAU = 8.0


class AdaptiveLimit:
    """A semaphore whose size moves between 1 and `maximum`; `async with` holds one slot."""

    def __init__(self, maximum: int, *, adaptive: bool = True) -> None:
        self.maximum = maximum
        self.adaptive = adaptive
        self.limit = float(min(maximum, INITIAL) if adaptive else maximum)
        self.slow_start = True
        self.in_flight = 0
        self.epoch = 0  # bumped at each decrease
        self.ceiling: float | None = None  # the limit when the last 429 came
        self._waiters: deque[asyncio.Future[int]] = deque()

    @property
    def current(self) -> int:
        return max(1, int(self.limit))

    async def acquire(self) -> int:
        """Wait for a slot (first come, first served); returns the epoch the call starts in."""
        if self.in_flight < self.current and not self._waiters:
            self.in_flight += 1
            return self.epoch
        waiter: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            # the epoch the slot was granted in: a decrease between the grant and this task's
            # resumption must not make the call look newer than it is
            return await waiter
        except asyncio.CancelledError:
            if waiter in self._waiters:
                self._waiters.remove(waiter)
            elif not waiter.cancelled():  # granted a slot, then cancelled: hand it on
                self.release()
            raise

    def release(self) -> None:
        self.in_flight -= 1
        self._wake()

    async def __aenter__(self) -> int:
        return await self.acquire()

    async def __aexit__(self, *exc: object) -> None:
        self.release()

    def answered(self) -> None:
        """An answered call: grow (slow start: +1; after: +1/limit; near the ceiling: slower)."""
        if not self.adaptive or self.limit >= self.maximum:
            return
        if self.slow_start:
            step = 1.0
        elif self._below_ceiling():
            step = max(1.0, CLIMB * self.limit) / self.limit  # CLIMB a window, at least one
        else:
            step = 1.0 / self.limit
        if self.ceiling is not None and self.ceiling - 1.0 <= self.limit < self.ceiling:
            step = 1.0 / (self.limit * PLATEAU)
        self.limit = min(float(self.maximum), self.limit + step)
        self._wake()

    def _below_ceiling(self) -> bool:
        """Well under the level of the last 429: climb back faster than past it."""
        return self.ceiling is not None and self.limit < self.ceiling - 1.0

    def overloaded(self, started_epoch: int) -> None:
        """A 429 from a call that started in `started_epoch`: shrink once per window."""
        if not self.adaptive or started_epoch < self.epoch:
            return
        self.slow_start = False
        self.ceiling = float(self.current)
        self.limit = max(1.0, self.limit * DECREASE)
        self.epoch += 1

    def _wake(self) -> None:
        """Grant free slots to waiters in order (the slot is counted when granted)."""
        while self._waiters and self.in_flight < self.current:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self.in_flight += 1
                waiter.set_result(self.epoch)
