"""A session's grading: the grader and its worker processes, then the event loop that grades
the pending items into the recorder (experiment/runner.py schedules them)."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import pkgutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar

import autorubric_cli.metrics as metrics
from autorubric_cli.core.config import LLMConfig
from autorubric_cli.core.items import Item
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import BudgetStop
from autorubric_cli.experiment.batches import batch_coordinator, batch_window
from autorubric_cli.experiment.budget import budget_message, spend_cap
from autorubric_cli.experiment.few_shot_labels import experiment_examples
from autorubric_cli.experiment.lifecycle import RunRecorder, pending_items
from autorubric_cli.experiment.manifest import ITEMS
from autorubric_cli.experiment.progress import Progress
from autorubric_cli.experiment.runner import (
    ItemWork,
    RunOutcome,
    StopSignals,
    Work,
    items_in_flight,
    run_units,
)
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.batch.transport import batch_enabled
from autorubric_cli.judges.cache import CallCache, cache_path
from autorubric_cli.judges.policy.breaker import JudgeUnavailable
from autorubric_cli.judges.policy.failures import JudgeAuthError
from autorubric_cli.judges.policy.spend import BudgetReached
from autorubric_cli.judges.prompt_caching import caching_kind
from autorubric_cli.judges.tracing import run_span
from autorubric_cli.judges.transports.simulated import is_simulated
from autorubric_cli.judges.transports.workers import WorkerPool, WorkerPoolFailed, cores

G = TypeVar("G")


def make_grader(
    rubric: Rubric, seed: int, base_dir: Path, cache_dir: Path | None, directory: Path
) -> CriterionGrader:
    """The run's grader. With `workers: N` its worker processes are spawned first, so that
    litellm's import there overlaps with everything this process still does before a call."""
    return build_grader(CriterionGrader, rubric, seed, base_dir, cache_dir, directory)


def build_grader(
    build: Callable[..., G],
    rubric: Rubric,
    seed: int,
    base_dir: Path,
    cache_dir: Path | None,
    directory: Path,
) -> G:
    """`build(rubric, seed=, base_dir=, cache=, batches=, workers=, budget=)` with the
    session's call cache, batches, worker processes and spend cap (`make_grader`)."""
    budget = spend_cap(rubric.grader, directory / ITEMS)
    workers = worker_pool(rubric.grader)
    try:
        cache = CallCache(cache_path(cache_dir)) if rubric.grader.cache else None
        batches = batch_coordinator(directory, rubric.grader)
        return build(
            rubric,
            seed=seed,
            base_dir=base_dir,
            cache=cache,
            batches=batches,
            workers=workers,
            budget=budget,
            examples=experiment_examples(rubric, base_dir),
        )
    except BaseException:
        if workers is not None:
            workers.terminate()
        raise


def worker_pool(config: LLMConfig) -> WorkerPool | None:
    """Worker processes for the litellm calls (judges/transports/workers.py); None when `workers:
    0` or when no judge calls litellm directly (simulated or batched judges). `workers: N` starts
    them now; `auto` starts them only if this process gets too busy."""
    direct = [
        j for j in config.judges if not is_simulated(j.model) and not batch_enabled(config, j)
    ]
    if config.workers == 0 or not direct:
        return None
    if config.workers == "auto":
        return WorkerPool(direct, config.timeout, cores(), spill=True)
    pool = WorkerPool(direct, config.timeout, config.workers)
    pool.start()
    return pool


class HasWorkers(Protocol):
    @property
    def workers(self) -> WorkerPool | None: ...


@contextlib.contextmanager
def stopping_workers(grader: HasWorkers) -> Iterator[None]:
    """Before the event loop runs, a failure (a busy directory, a full disk) stops the worker
    processes at once instead of leaving them to notice the closed socket."""
    try:
        yield
    except BaseException:
        if grader.workers is not None:
            grader.workers.terminate()
        raise


def _import_metrics() -> None:
    # A warm-up, not a way to reach names (docs/design/startup.md): it runs in a thread while
    # the run grades, to have numpy and scipy loaded by the time the end-of-run report, which
    # the command imports after the run, needs them.
    for module in pkgutil.iter_modules(metrics.__path__, f"{metrics.__name__}."):
        importlib.import_module(module.name)


def _preload_report() -> threading.Thread:
    """Import the metrics the end-of-run report needs (numpy, scipy: seconds) in a thread while
    the run grades: a run mostly waits on its judges, so the import then costs it nothing."""
    thread = threading.Thread(target=_import_metrics, daemon=True)
    thread.start()
    return thread


def window_for(rubric: Rubric, criteria: int) -> int:
    """Items in flight: enough to keep every call slot (or batch) busy, for items of `criteria`
    criteria each."""
    config = rubric.grader
    per_item = config.llm_calls == "per_item"
    calls = (1 if per_item else criteria) * sum(j.samples for j in config.judges)
    staged = not per_item and any(caching_kind(j) for j in config.judges)
    window = items_in_flight(config.concurrency, calls, staged)
    return batch_window(config, criteria, window)


def first_seen(items: Iterator[Item], rubric: Rubric) -> tuple[Iterator[Item], int]:
    """The items, and the criteria of the first (the file's and its own): a dataset of
    per-item rubrics (docs/guides/per-item-rubrics.md) sizes the window by it."""
    first = next(items, None)
    if first is None:
        return items, len(rubric.criteria)
    return itertools.chain([first], items), len(rubric.criteria) + len(first.rubric)


def grade_pending(
    recorder: RunRecorder,
    rubric: Rubric,
    grader: CriterionGrader,
    done: set[str],
    priors: dict[str, ItemRecord],
    dataset: Path,
    grace_s: float,
) -> RunOutcome:
    """Grade the items of the run not in `done` (`priors`: errored records to grade again),
    then `finish` the recorder, however the loop ended. A spend-cap stop is a `BudgetStop`."""
    items, criteria = first_seen(pending_items(dataset, rubric, recorder.manifest, done), rubric)
    already = min(len(done), recorder.manifest.items_total)
    work = ItemWork(grader)
    window = window_for(rubric, criteria)
    return grade_units(recorder, rubric, work, items, window, already, priors, grace_s)


def grade_units(
    recorder: RunRecorder,
    rubric: Rubric,
    work: Work,
    units: Iterator[Any],
    window: int,
    already: int,
    priors: dict[str, Any],
    grace_s: float,
) -> RunOutcome:
    """Grade `units` (`already` of the session's total are recorded), `window` in flight, then
    `finish` the recorder, however the loop ended. A spend-cap stop is a `BudgetStop`."""
    manifest = recorder.manifest
    unit = "comparisons" if manifest.kind == "pairwise" else "items"
    progress = Progress(manifest.items_total, already, work.stats, manifest.simulated, unit)
    outcome = RunOutcome()
    preloading = _preload_report()
    with traced_run(recorder, rubric):
        try:
            outcome = asyncio.run(
                _run_async(work, units, recorder, progress, window, grace_s, priors)
            )
        except KeyboardInterrupt:
            outcome.interrupted = True
            raise
        except BaseException as exc:  # the manifest must not say `completed` after a failure
            outcome.fatal = exc
            raise
        finally:
            preloading.join()  # never leave an import running into interpreter shutdown
            outcome.dialects = work.dialects()
            if isinstance(outcome.fatal, BudgetReached):
                recorded_items = already + outcome.graded
                outcome.fatal = BudgetStop(
                    budget_message(rubric.grader.max_cost or 0.0, recorded_items)
                )
            recorder.finish(outcome)
    return outcome


@contextlib.contextmanager
def traced_run(recorder: RunRecorder, rubric: Rubric) -> Iterator[None]:
    """The session in its trace span (judges/tracing.py), ended with the status it recorded."""
    manifest = recorder.manifest
    with run_span(manifest.name, rubric.name or Path(manifest.rubric.path).name) as span:
        try:
            yield
        finally:
            span.finish(manifest.status, manifest.error)


async def _run_async(
    work: Work,
    units: Iterator[Any],
    recorder: RunRecorder,
    progress: Progress,
    window: int,
    grace_s: float,
    priors: dict[str, Any],
) -> RunOutcome:
    stop = StopSignals(
        notify=lambda: progress.say(
            "[yellow]stopping: finishing in-flight calls (press Ctrl-C again to exit now)[/]"
        )
    )
    writer = recorder.items_writer()
    try:
        with stop.installed(), progress:
            return await run_units(
                work,
                units,
                writer,
                progress,
                stop,
                window=window,
                grace_s=grace_s,
                priors=priors,
                fatal_errors=(
                    JudgeAuthError,
                    JudgeUnavailable,
                    WorkerPoolFailed,
                ),
                budget_errors=(BudgetReached,),
            )
    finally:
        try:
            writer.close()
        finally:
            await work.aclose()
