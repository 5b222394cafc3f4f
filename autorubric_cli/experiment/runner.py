"""Schedules items so calls from many items are in flight at once; appends records as they finish.

What it schedules is a unit of work with an `id`: a dataset item (`run_items`, graded by the
CriterionGrader) or any other unit a `Work` turns into one record (`run_units`; pairwise judging
schedules (item, pair of systems) comparisons, pairwise/grader.py).

Signals: the first SIGINT/SIGTERM stops scheduling and gives in-flight items `grace_s` seconds
to finish before they are cancelled; a second one cancels at once. Records are appended
synchronously between awaits, so cancellation can never leave half a record behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from autorubric_cli.core.conversation import as_given
from autorubric_cli.core.items import Item
from autorubric_cli.core.pair_records import PairRecord
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.core.scoring import submission_word_counts
from autorubric_cli.errors import StorageError
from autorubric_cli.experiment.progress import Progress
from autorubric_cli.experiment.store import FSYNC_INTERVAL_S, RecordWriter
from autorubric_cli.judges.stats import CallStats
from autorubric_cli.judges.tracing import item_span


class Grader(Protocol):
    stats: CallStats

    async def grade(self, item: Item, prior: ItemRecord | None = None) -> ItemRecord: ...

    def dialects(self) -> dict[str, str]: ...

    async def aclose(self) -> None: ...


Recorded = ItemRecord | PairRecord
"""A line of items.jsonl: an item's record, or a pairwise comparison's."""


class Work(Protocol):
    """Turns a unit (anything with an `id`) into its finished record. `prior`: the unit's
    earlier errored record, graded again (`resume --retry-errors`)."""

    @property
    def stats(self) -> CallStats: ...

    async def record_of(self, unit: Any, prior: Any) -> Recorded: ...

    def failed_record(self, unit: Any, exc: BaseException, duration: float) -> Recorded:
        """The record of a unit whose grading raised (a bug): an error, graded again later."""
        ...

    def dialects(self) -> dict[str, str]:
        """Each judge's structured-output dialect now (the manifest records it at the end)."""
        ...

    async def aclose(self) -> None:
        """Close the judges' clients, workers and cache, before the event loop ends."""


@dataclass
class RunOutcome:
    graded: int = 0
    errored: int = 0
    interrupted: bool = False
    fatal: BaseException | None = None
    dialects: dict[str, str] = field(default_factory=dict)  # judge id -> dialect at the end


@dataclass
class StopSignals:
    """First signal: stop scheduling (graceful). Second: cancel everything now (forced)."""

    graceful: asyncio.Event = field(default_factory=asyncio.Event)
    forced: asyncio.Event = field(default_factory=asyncio.Event)
    patient: bool = False  # a spend-cap stop: the items in flight finish, with no deadline
    notify: Any = None

    def trigger(self) -> None:
        if self.graceful.is_set():
            self.forced.set()
            return
        self.graceful.set()
        if self.notify is not None:
            self.notify()

    @contextlib.contextmanager
    def installed(self) -> Any:
        """SIGINT and SIGTERM trigger a stop. Only the main thread can own signals: a run driven
        from a worker thread (the async API) leaves them to the caller's process."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.trigger)
        try:
            yield self
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)


def items_in_flight(concurrency: int, calls_per_item: int, staged: bool = False) -> int:
    """Enough items queued to keep every call slot busy, and a few more for the tail.

    `staged`: an item's first call goes alone (provider prompt caching, `grading.grader`), so
    an item keeps half as many calls in flight on average: twice as many items are queued."""
    return max(4, (4 if staged else 2) * -(-concurrency // max(calls_per_item, 1)))


def finish_record(record: ItemRecord, item: Item) -> ItemRecord:
    """Attach what `report` needs to rescore and compare with labels from items.jsonl alone, and
    what was graded (the HTML report and the labelling page show it with the dataset gone)."""
    return record.model_copy(
        update={
            "id": item.id,
            "index": item.index,
            "word_counts": submission_word_counts(item.submission),
            "ground_truth": item.ground_truth,
            "human_ratings": item.human_ratings,
            "metadata": item.metadata,
            "submission": item.submission.as_given(),
            "query": item.query,
            "reference_submission": item.reference_submission,
            "context": None if item.context is None else as_given(item.context),
            "tags": item.tags,
        }
    )


async def traced_grade(grader: Grader, item: Item, prior: ItemRecord | None) -> ItemRecord:
    """The item's record, graded inside its trace span (its calls' spans are its children)."""
    with item_span(item.id) as span:
        record = await grader.grade(item, prior)
        span.record(record)
    return record


def internal_error_record(item: Item, exc: BaseException, duration: float) -> ItemRecord:
    return finish_record(
        ItemRecord(
            id=item.id,
            index=item.index,
            status="error",
            error=f"internal: {type(exc).__name__}: {exc}",
            duration_s=duration,
        ),
        item,
    )


@dataclass
class ItemWork:
    """A run's work: an item, graded by the grader, with what `report` needs attached."""

    grader: Grader

    @property
    def stats(self) -> CallStats:
        return self.grader.stats

    async def record_of(self, unit: Any, prior: Any) -> Recorded:
        return finish_record(await traced_grade(self.grader, unit, prior), unit)

    def failed_record(self, unit: Any, exc: BaseException, duration: float) -> Recorded:
        return internal_error_record(unit, exc, duration)

    def dialects(self) -> dict[str, str]:
        return self.grader.dialects()

    async def aclose(self) -> None:
        await self.grader.aclose()


@dataclass
class ItemGrading:
    """What grading one unit needs, and the run's outcome it adds to."""

    grader: Work
    writer: RecordWriter
    progress: Progress
    stop: StopSignals
    priors: dict[str, Any]
    fatal_errors: tuple[type[BaseException], ...]
    budget_errors: tuple[type[BaseException], ...]
    outcome: RunOutcome = field(default_factory=RunOutcome)

    def stop_writing(self, exc: StorageError) -> None:
        """A record could not be written (full disk): stop at once; resume grades it again."""
        self.outcome.fatal = exc
        self.stop.forced.set()

    async def grade_one(self, item: Any) -> None:
        started = time.monotonic()
        try:
            record = await self.grader.record_of(item, self.priors.get(item.id))
        except self.fatal_errors as exc:
            self.outcome.fatal = exc
            self.stop.forced.set()
            return
        except self.budget_errors as exc:
            self.outcome.fatal = self.outcome.fatal or exc
            self.stop.patient = True
            self.stop.graceful.set()
            return
        except Exception as exc:  # a bug must not lose the run: record it, retry later
            record = self.grader.failed_record(item, exc, time.monotonic() - started)
        try:
            self.writer.append(record)
        except StorageError as exc:
            self.stop_writing(exc)
            return
        self.outcome.graded += 1
        self.outcome.errored += record.status == "error"
        self.progress.item_finished(record.status == "error")


async def run_items(
    grader: Grader,
    items: Iterable[Item],
    writer: RecordWriter,
    progress: Progress,
    stop: StopSignals,
    *,
    window: int,
    grace_s: float,
    priors: dict[str, ItemRecord] | None = None,
    fatal_errors: tuple[type[BaseException], ...] = (),
    budget_errors: tuple[type[BaseException], ...] = (),
) -> RunOutcome:
    """Grade `items`, `window` at a time (`run_units` with the items' work)."""
    return await run_units(
        ItemWork(grader),
        items,
        writer,
        progress,
        stop,
        window=window,
        grace_s=grace_s,
        priors=priors,
        fatal_errors=fatal_errors,
        budget_errors=budget_errors,
    )


async def run_units(
    work: Work,
    units: Iterable[Any],
    writer: RecordWriter,
    progress: Progress,
    stop: StopSignals,
    *,
    window: int,
    grace_s: float,
    priors: dict[str, Any] | None = None,
    fatal_errors: tuple[type[BaseException], ...] = (),
    budget_errors: tuple[type[BaseException], ...] = (),
) -> RunOutcome:
    """Grade `units`, `window` at a time. A `fatal_errors` exception stops everything at once;
    a `budget_errors` one (the spend cap refused a call) stops scheduling and lets the units in
    flight finish or be refused in turn; the unit it came from is not recorded."""
    grading = ItemGrading(work, writer, progress, stop, priors or {}, fatal_errors, budget_errors)
    slots = asyncio.Semaphore(window)
    tasks: set[asyncio.Task[None]] = set()
    ticker = asyncio.create_task(_every_second(writer, progress, grading.stop_writing))
    try:
        for unit in units:
            if not await _acquire_unless(slots, stop.graceful):
                break
            task = asyncio.create_task(grading.grade_one(unit))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            task.add_done_callback(lambda _: slots.release())
            if stop.forced.is_set():
                break
        await _drain(tasks, stop, grace_s)
    finally:
        ticker.cancel()
    outcome = grading.outcome
    outcome.interrupted = stop.graceful.is_set() or stop.forced.is_set()
    return outcome


async def _every_second(
    writer: RecordWriter, progress: Progress, on_error: Callable[[StorageError], None]
) -> None:
    """fsync finished records within a second, and keep the status line alive between items."""
    while True:
        await asyncio.sleep(FSYNC_INTERVAL_S)
        try:
            writer.sync_if_due()
        except StorageError as exc:
            on_error(exc)
            return
        progress.refresh()


async def _acquire_unless(slots: asyncio.Semaphore, stop: asyncio.Event) -> bool:
    """Wait for a free slot; False as soon as `stop` is set."""
    if stop.is_set():
        return False
    if not slots.locked():
        await slots.acquire()
        return True
    acquire = asyncio.create_task(slots.acquire())
    stopped = asyncio.create_task(stop.wait())
    await asyncio.wait({acquire, stopped}, return_when=asyncio.FIRST_COMPLETED)
    stopped.cancel()
    if acquire.done() and not acquire.cancelled():
        if stop.is_set():
            slots.release()
            return False
        return True
    acquire.cancel()
    return False


async def _wait_any(
    tasks: set[asyncio.Task[None]], event: asyncio.Event, timeout: float | None
) -> None:
    waiter = asyncio.create_task(event.wait())
    try:
        await asyncio.wait({*tasks, waiter}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()


async def _drain(tasks: set[asyncio.Task[None]], stop: StopSignals, grace_s: float) -> None:
    """Let in-flight items finish; after a stop, give them `grace_s`, then cancel."""
    while tasks and not stop.forced.is_set() and (stop.patient or not stop.graceful.is_set()):
        await _wait_any(tasks, stop.forced if stop.patient else stop.graceful, None)
    deadline = time.monotonic() + grace_s
    while tasks and not stop.forced.is_set() and time.monotonic() < deadline:
        await _wait_any(tasks, stop.forced, deadline - time.monotonic())
    for task in list(tasks):
        task.cancel()
    if tasks:
        await asyncio.gather(*tasks, return_exceptions=True)
