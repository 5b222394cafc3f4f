"""The batch transport (docs/guides/batches.md): collects calls, submits them as provider batches,
hands the answers back as batches complete. The Judge above awaits `complete` exactly as it awaits a
direct call, so the grader does not know which transport answered; retries and re-asks come back
here as new calls and go into follow-up batches, within the Judge's `max_attempts`. One batch and
its waiting calls is a `TrackedBatch` (tracked.py).

Crash safety (the invariant): a batch's request keys reach `batches.jsonl` before its file is
uploaded, and its batch id as soon as the provider returns it. On a later run, a call whose key
is in a recorded batch is answered from that batch (re-attach) and never submitted again. A
recorded answer that is a failure (an error line, an expired request) is not replayed: the next
recorded batch holding the key is tried, and when none is left the call is asked again, as a
retry would have asked it.
A batch recorded without an id (a crash between upload and the id's recording) is looked up at
the provider by the metadata we set (`autorubric_local`) before anything of that judge is sent;
only if the provider has no such batch are its requests sent again.

`submit=False` (resume --no-batch) sends nothing new as a batch: a call whose recorded batch has
finished is answered from it (already paid), every other call goes to the direct transport.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import deque
from typing import Any

from autorubric_cli.core.config import JudgeSpec, LLMConfig
from autorubric_cli.judges.batch.base import BatchInfo, ProviderBatches
from autorubric_cli.judges.batch.capture import RawReply
from autorubric_cli.judges.batch.ledger import BatchLedger, RecordedBatch
from autorubric_cli.judges.batch.lines import Result
from autorubric_cli.judges.batch.settings import (
    BatchSettings,
    batch_enabled,
    provider_api,
)
from autorubric_cli.judges.batch.tracked import TERMINAL, TrackedBatch
from autorubric_cli.judges.policy.failures import JudgeAuthError, JudgeFailure
from autorubric_cli.judges.policy.retry import RetryPolicy
from autorubric_cli.judges.request import Call, Completion, Transport
from autorubric_cli.judges.request_key import request_key
from autorubric_cli.judges.stats import CallStats
from autorubric_cli.judges.transports.simulated import is_simulated

logger = logging.getLogger(__name__)


class BatchCoordinator:
    """Every batch of one experiment: the ledger, submitting, polling, re-attachment."""

    def __init__(self, ledger: BatchLedger, settings: BatchSettings, tag: str) -> None:
        self.ledger = ledger
        self.settings = settings
        self.tag = tag[:200]
        self.stats = CallStats()
        self.recorded: list[TrackedBatch] = []
        self.index: dict[tuple[str, str], deque[TrackedBatch]] = {}
        for record in ledger.recorded():
            if record.status == "abandoned":
                continue
            tracked = TrackedBatch(record)
            self.recorded.append(tracked)
            for key in record.keys:
                self.index.setdefault((record.judge, key), deque()).append(tracked)
        self.tasks: set[asyncio.Task[Any]] = set()
        self.sending: set[asyncio.Task[Any]] = set()
        self.orphans_checked: set[str] = set()
        self.orphan_lock: asyncio.Lock | None = None
        self.transports: list[BatchTransport] = []

    def wrap(
        self,
        spec: JudgeSpec,
        direct: Transport,
        config: LLMConfig,
        policy: RetryPolicy,
        stats: CallStats,
    ) -> tuple[Transport, bool]:
        """The transport for a judge, and whether its calls skip concurrency limits."""
        self.stats = stats
        submit = batch_enabled(config, spec)
        if not submit and (is_simulated(spec.model) or not self._has_recorded(spec.judge_id)):
            return direct, False
        api = provider_api(spec, config, policy)
        api.poll_s = self.settings.poll_s
        transport = BatchTransport(self, spec, api, direct, submit=submit)
        self.transports.append(transport)
        return transport, submit

    def _has_recorded(self, judge: str) -> bool:
        return any(s.record.judge == judge for s in self.recorded)

    # -- recorded batches ------------------------------------------------------------------

    def take(self, judge: str, key: str) -> TrackedBatch | None:
        """The oldest recorded batch holding this call not yet used by this run."""
        queue = self.index.get((judge, key))
        while queue:
            tracked = queue.popleft()
            if not queue:
                del self.index[(judge, key)]
            if tracked.record.status != "abandoned":
                return tracked
        return None

    def known_ids(self) -> set[str]:
        return {s.record.batch_id for s in self.recorded if s.record.batch_id is not None}

    async def check_orphans(self, judge: str, api: ProviderBatches) -> None:
        """Once per judge: find at the provider the recorded batches that have no id."""
        if judge in self.orphans_checked:
            return
        if self.orphan_lock is None:
            self.orphan_lock = asyncio.Lock()
        async with self.orphan_lock:
            if judge in self.orphans_checked:
                return
            pending = [
                s
                for s in self.recorded
                if s.record.judge == judge
                and s.record.batch_id is None
                and s.record.status != "abandoned"
            ]
            if pending:
                found = await api.find([s.record for s in pending], self.known_ids())
                for tracked in pending:
                    info = found.get(tracked.record.local)
                    if info is None:
                        self._abandon(tracked, "not found at the provider")
                    else:
                        self._record_id(tracked, info.id, api.found_by)
            self.orphans_checked.add(judge)

    async def finished(self, tracked: TrackedBatch, api: ProviderBatches) -> bool:
        """Whether a recorded batch has ended (one retrieve per batch per run)."""
        if tracked.results is not None or tracked.record.status in TERMINAL:
            return True
        batch_id = tracked.record.batch_id
        if batch_id is None:
            return False
        if tracked.checked is None:
            tracked.checked = asyncio.ensure_future(api.retrieve(batch_id))
        try:
            info = await asyncio.shield(tracked.checked)
        except JudgeFailure:
            return False
        if info.status not in TERMINAL and not tracked.warned:
            tracked.warned = True
            logger.warning(
                "batch %s is still %s; its requests are sent directly (--no-batch)",
                batch_id,
                info.status,
            )
        return info.status in TERMINAL

    def attach(
        self, tracked: TrackedBatch, key: str, api: ProviderBatches
    ) -> asyncio.Future[Result]:
        future: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        tracked.waiters.setdefault(key, []).append(future)
        if tracked.results is not None:
            tracked.resolve()
        elif not tracked.watching:
            tracked.watching = True
            self.stats.batches_submitted += 1
            self._spawn(self._watch(tracked, api))
        return future

    # -- sending ---------------------------------------------------------------------------

    def send(self, tracked: TrackedBatch, data: bytes, api: ProviderBatches) -> None:
        tracked.watching = True
        task = self._spawn(self._submit(tracked, data, api))
        self.sending.add(task)
        task.add_done_callback(self.sending.discard)

    async def _submit(self, tracked: TrackedBatch, data: bytes, api: ProviderBatches) -> None:
        record = tracked.record
        self.ledger.prepared(record)  # BEFORE the upload: the invariant of this module
        self.stats.batches_submitted += 1
        metadata = {"autorubric_local": record.local, "autorubric_experiment": self.tag}
        found_by = None

        def uploaded(input_file_id: str) -> None:
            record.input_file_id = input_file_id
            self.ledger.uploaded(record.local, input_file_id)

        try:
            info = await api.start(data, record.local, metadata, uploaded)
        except JudgeAuthError as exc:
            self._abandon(tracked, str(exc))
            tracked.fail(exc)
            return
        except JudgeFailure as failure:
            created = record.input_file_id or api.inline  # only a create can have made one
            found = await self._look_up(api, record) if created else None
            if found is None:
                self._abandon(tracked, failure.describe())
                tracked.fail(failure)
                return
            info, found_by = found, api.found_by
        self._record_id(tracked, info.id, found_by)
        self.sending.discard(asyncio.current_task())
        await self._watch(tracked, api)

    async def _look_up(self, api: ProviderBatches, record: RecordedBatch) -> BatchInfo | None:
        """After a failed create: did the provider create it anyway?"""
        try:
            return (await api.find([record], self.known_ids())).get(record.local)
        except (JudgeFailure, JudgeAuthError):
            return None

    def _record_id(self, tracked: TrackedBatch, batch_id: str, found_by: str | None) -> None:
        tracked.record.batch_id = batch_id
        tracked.record.status = "submitted"
        self.ledger.submitted(tracked.record.local, batch_id, found_by)

    def _abandon(self, tracked: TrackedBatch, reason: str) -> None:
        tracked.record.status = "abandoned"
        self.ledger.abandoned(tracked.record.local, reason)

    # -- polling ---------------------------------------------------------------------------

    async def _watch(self, tracked: TrackedBatch, api: ProviderBatches) -> None:
        """Poll until the batch ends, then download its answers and hand them out."""
        record = tracked.record
        assert record.batch_id is not None
        self.stats.batches_running += 1
        try:
            info = await self._poll(tracked, api)
            results = await api.results(info)
        except (JudgeFailure, JudgeAuthError) as exc:
            tracked.watching = False
            tracked.fail(exc)
            return
        finally:
            self.stats.batches_running -= 1
        tracked.results = results
        self.stats.batches_done += 1
        self.stats.batch_requests_done += len(results)
        tracked.resolve()

    async def _poll(self, tracked: TrackedBatch, api: ProviderBatches) -> BatchInfo:
        record = tracked.record
        assert record.batch_id is not None
        while True:
            try:
                info = await api.retrieve(record.batch_id)
            except JudgeFailure as failure:
                if not failure.retryable:
                    raise
                await asyncio.sleep(self.settings.poll_s)  # the batch exists: keep waiting
                continue
            if info.status != record.status or info.counts != record.counts:
                record.status, record.counts = info.status, info.counts
                self.ledger.status(record.local, info.status, info.counts)
            if info.status in TERMINAL:
                return info
            await asyncio.sleep(self.settings.poll_s)

    def _spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def aclose(self) -> None:
        """Stop polling (the batches keep running at the provider); let a batch being created
        get its id recorded first, within `close_grace_s`. Calls still queued are dropped: they
        were never recorded, so a later run asks them again."""
        for transport in self.transports:
            transport.drop_queue()
        if self.sending:
            await asyncio.wait(set(self.sending), timeout=self.settings.close_grace_s)
        for task in list(self.tasks):
            task.cancel()
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)
        for transport in self.transports:
            await transport.api.aclose()
        close = getattr(self.ledger, "close", None)
        if close is not None:
            close()


class BatchTransport:
    """One judge's calls: re-attached to a recorded batch, queued for a new one, or (with
    `submit=False`) sent directly."""

    def __init__(
        self,
        coordinator: BatchCoordinator,
        spec: JudgeSpec,
        api: ProviderBatches,
        direct: Transport,
        *,
        submit: bool,
    ) -> None:
        self.coordinator = coordinator
        self.spec = spec
        self.api = api
        self.direct = direct
        self.submit = submit
        self.queue: list[bytes] = []
        self.queue_bytes = 0
        self.pending: dict[str, list[asyncio.Future[Result]]] = {}
        settings = coordinator.settings
        self.max_requests = min(settings.max_requests or api.limits[0], api.limits[0])
        self.max_bytes = min(settings.max_bytes or api.limits[1], api.limits[1])
        self.timer: asyncio.TimerHandle | None = None

    async def complete(self, call: Call) -> Completion:
        key = request_key(self.spec, call)
        coordinator = self.coordinator
        await coordinator.check_orphans(self.spec.judge_id, self.api)
        while (recorded := coordinator.take(self.spec.judge_id, key)) is not None:
            if not self.submit and not await coordinator.finished(recorded, self.api):
                break
            try:
                result = await coordinator.attach(recorded, key, self.api)
            except JudgeFailure:
                continue  # a recorded failure is not replayed: the call is asked again
            if isinstance(result, RawReply) and result.status != 200:
                continue  # the same, for an error reply litellm has not read yet
            return await self.api.answered(result, call)
        if not self.submit:
            return await self.direct.complete(call)
        return await self.api.ask(self.enqueue, key, call)

    async def aclose(self) -> None:
        """Close the direct transport (the batch API is the coordinator's to close)."""
        await self.direct.aclose()

    def enqueue(self, key: str, line: bytes) -> asyncio.Future[Result]:
        """Queue one call; a full queue (requests or bytes) is sent at once, the first call of
        a new queue starts the send delay."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Result] = loop.create_future()
        if key in self.pending:
            self.pending[key].append(future)
            return future
        if self.queue and self.queue_bytes + len(line) > self.max_bytes:
            self.flush()
        self.queue.append(line)
        self.queue_bytes += len(line)
        self.pending[key] = [future]
        if len(self.queue) >= self.max_requests:
            self.flush()
        elif self.timer is None:
            self.timer = loop.call_later(self.coordinator.settings.send_delay_s, self.flush)
        return future

    def drop_queue(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.queue, self.queue_bytes, self.pending = [], 0, {}

    def flush(self) -> None:
        waiters, data = self.pending, b"".join(self.queue)
        self.drop_queue()
        if not waiters:
            return
        record = RecordedBatch(uuid.uuid4().hex, self.spec.judge_id, list(waiters), time.time())
        tracked = TrackedBatch(record)
        tracked.waiters = waiters
        self.coordinator.send(tracked, data, self.api)
