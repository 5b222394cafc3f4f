"""Concurrency slots and the per-judge requests-per-minute limiter.

A judge's own slots are an `AdaptiveLimit` (adaptive.py) or a plain semaphore: anything held
with `async with`. Every transport path takes its calls through `call_slot`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

UNLIMITED = 1_000_000  # a batched judge's calls wait on batches, not on concurrency slots


class RequestRateLimiter:
    """Spaces request starts at least 60/rpm seconds apart (a steady rate, no burst).

    Turns are taken one at a time, in order, and each is measured from when the one before
    actually began: a sleep that overshoots (a loaded machine) delays the next start with it,
    instead of letting the two bunch, as times booked in advance would."""

    def __init__(self, rpm: float) -> None:
        self.interval_s = 60.0 / rpm
        self._last: float | None = None
        self._turns = asyncio.Lock()  # bound to the running loop at its first use

    async def wait_turn(self) -> None:
        async with self._turns:
            loop = asyncio.get_running_loop()
            if self._last is not None:
                delay = self._last + self.interval_s - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
            self._last = loop.time()


@asynccontextmanager
async def call_slot(
    judge_slots: AbstractAsyncContextManager[Any],
    global_slots: asyncio.Semaphore,
    limiter: RequestRateLimiter | None,
) -> AsyncIterator[None]:
    """Hold the judge's slot, wait for its rate turn, then hold a global slot.

    The judge slot comes first so a judge waiting on its own limits never holds a global slot
    that another judge could use.
    """
    async with judge_slots:
        if limiter is not None:
            await limiter.wait_turn()
        async with global_slots:
            yield
