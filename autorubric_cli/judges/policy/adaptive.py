"""Adaptive concurrency for one judge: find the provider's rate limit instead of fighting it.

AIMD, as TCP does for congestion: the limit starts at `min(maximum, INITIAL)`, grows by one per
answered call until the first 429, overload or queueing cut (slow start); a refusal multiplies
it by DECREASE (0.8, as Inspect does), at most once per window: the refusals of calls granted
their slot before the last decrease are the same overload, not a new one (a slot keeps the epoch
it was granted in, even when its task resumes after a decrease). Below the level where the last
refusal came (the ceiling), the limit climbs back by CLIMB (5 %) a window, at least one; within
one of the ceiling, PLATEAU times slower than one a window, as CUBIC does near its last maximum,
so the run sits just under the provider's limit and probes it rarely; past the ceiling, one a
window (the provider's limit rose). It never exceeds the configured `max_concurrency` nor drops
below 1. Measured by `bench/rate_limit.py`. Retry hints are honoured by the retry policy; this
only decides how many calls are in flight.

A server that queues instead of refusing is found by latency (queueing.py): when latency rose
with the calls in flight and throughput did not, the limit is cut as after a 429 (one decrease,
slow start ends) to what that throughput needs, and growth near that level is as slow as near a
429's; a cut that the next windows contradict is undone. Measured by
`bench/queueing_server.py`.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable

from autorubric_cli.judges.policy.queueing import QueueWatch, queue_limit

INITIAL = 8
DECREASE = 0.8
CLIMB = 0.05
PLATEAU = 8.0
UNDO_AFTER = 2  # verdicts in a row against a queueing cut that undo it


class AdaptiveLimit:
    """A semaphore whose size moves between 1 and `maximum`; `async with` holds one slot."""

    def __init__(
        self, maximum: int, *, adaptive: bool = True, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.maximum = maximum
        self.adaptive = adaptive
        self.limit = float(min(maximum, INITIAL) if adaptive else maximum)
        self.slow_start = True
        self.in_flight = 0
        self.epoch = 0  # bumped at each decrease
        self.ceiling: float | None = None  # the limit when the last 429 came, or capacity found
        self.watch = QueueWatch()
        self.clock = clock
        self._before_cut: tuple[float, float | None] | None = None  # to undo a cut
        self._doubts = 0  # verdicts against the last cut, in a row
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

    def answered(self, latency: float | None = None, in_flight: int = 1) -> None:
        """An answered call, `latency` seconds after it was sent, with `in_flight` calls at the
        server (itself included): a window showing queueing cuts the limit (or undoes the last
        cut); otherwise it grows (slow start: +1; after: +1/limit; near the ceiling: slower)."""
        if not self.adaptive:
            return
        if latency is not None:
            verdict = self.watch.answered(latency, in_flight, self.clock(), self.limit)
            if verdict is not None and self._queueing(verdict):
                return
        if self.limit >= self.maximum:
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

    def _queueing(self, queued: bool) -> bool:
        """Act on the queue watch's verdict: cut; or, when UNDO_AFTER verdicts in a row since
        the last cut show the server serving the calls it took away, undo it (one noisy
        window, a stalled client, is not enough). True when the limit changed."""
        if not queued:
            self._doubts += 1
            before = self._before_cut
            if before is None or self._doubts < UNDO_AFTER:
                return False
            self.limit, self.ceiling = before
            self._before_cut = None
            self._wake()
            return True
        self._doubts = 0
        last, no_load = self.watch.last, self.watch.no_load_latency
        assert last is not None and no_load is not None
        cut = queue_limit(self.limit, last.throughput, no_load)
        if cut >= self.limit:
            return False
        self._before_cut = (self.limit, self.ceiling)
        self._decrease(cut, ceiling=cut + 1.0)
        return True

    def _below_ceiling(self) -> bool:
        """Well under the level of the last 429: climb back faster than past it."""
        return self.ceiling is not None and self.limit < self.ceiling - 1.0

    def overloaded(self, started_epoch: int) -> None:
        """A 429 from a call that started in `started_epoch`: shrink once per window."""
        if not self.adaptive or started_epoch < self.epoch:
            return
        self._before_cut = None  # a refusal: no queueing cut is undone past it
        self._decrease(max(1.0, self.limit * DECREASE), ceiling=float(self.current))

    def _decrease(self, limit: float, *, ceiling: float) -> None:
        """Shrink to `limit`: slow start ends; growth slows near `ceiling`; a new window."""
        self.slow_start = False
        self.ceiling = ceiling
        self.limit = limit
        self.epoch += 1

    def _wake(self) -> None:
        """Grant free slots to waiters in order (the slot is counted when granted)."""
        while self._waiters and self.in_flight < self.current:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self.in_flight += 1
                waiter.set_result(self.epoch)
