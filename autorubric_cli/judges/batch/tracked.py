"""One provider batch as the batch transport (`transport.py`) follows it: the calls waiting for
its answers, and the answers once it has ended. Recorded in the ledger by an earlier run
(re-attached) or sent by this one.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from autorubric_cli.judges.batch.base import BatchInfo
from autorubric_cli.judges.batch.capture import RawReply
from autorubric_cli.judges.batch.ledger import RecordedBatch
from autorubric_cli.judges.batch.lines import Result
from autorubric_cli.judges.batch.native import reply_failure
from autorubric_cli.judges.policy.failures import JudgeFailure

TERMINAL = frozenset({"completed", "expired", "failed", "cancelled"})


class TrackedBatch:
    """One batch: recorded in the ledger by an earlier run, or sent by this one."""

    def __init__(self, record: RecordedBatch) -> None:
        self.record = record
        self.waiters: dict[str, list[asyncio.Future[Result]]] = {}
        self.results: dict[str, Result] | None = None
        self.watching = False
        self.checked: asyncio.Future[BatchInfo] | None = None
        self.warned = False

    def missing(self) -> JudgeFailure:
        return reply_failure(str(self.record.batch_id), self.record.status)

    def resolve(self) -> None:
        """Hand every waiter its answer (identical calls queued together: the first one pays,
        the others are marked cached, as single flight does)."""
        results = self.results or {}
        for key, futures in self.waiters.items():
            result = results.get(key) or self.missing()
            for n, future in enumerate(futures):
                if future.done():
                    continue
                if isinstance(result, Exception):
                    future.set_exception(result)
                elif n == 0:
                    future.set_result(result)
                elif isinstance(result, RawReply):
                    future.set_result(replace(result, cached=True))
                else:
                    future.set_result(replace(result, usage=dict(result.usage), cached=True))
        self.waiters.clear()

    def fail(self, exc: Exception) -> None:
        for futures in self.waiters.values():
            for future in futures:
                if not future.done():
                    future.set_exception(exc)
        self.waiters.clear()
