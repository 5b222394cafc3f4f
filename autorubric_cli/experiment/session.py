"""`run` and `resume`: resolve the configuration, own the experiment directory, drive the runner."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from autorubric_cli import __version__
from autorubric_cli.core.config import LLMConfig
from autorubric_cli.core.items import Item
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.errors import (
    BudgetStop,
    InputError,
    RunInterrupted,
    RunStopped,
    StorageError,
    writing,
)
from autorubric_cli.experiment.batches import batch_coordinator, batch_window, without_batches
from autorubric_cli.experiment.budget import budget_message, spend_cap
from autorubric_cli.experiment.lock import claim_new_directory, writer_lock
from autorubric_cli.experiment.manifest import (
    ITEMS,
    RUBRIC_COPY,
    InputFile,
    Manifest,
    load_manifest,
    save_manifest,
    sha256_file,
    utc_now,
)
from autorubric_cli.experiment.options import GRACE_S
from autorubric_cli.experiment.options import RunOptions as RunOptions  # re-exported
from autorubric_cli.experiment.preflight import in_use_message, preflight
from autorubric_cli.experiment.progress import Progress
from autorubric_cli.experiment.runner import RunOutcome, StopSignals, items_in_flight, run_items
from autorubric_cli.experiment.shard import in_shard
from autorubric_cli.experiment.store import ReadIssues, RecordWriter, latest_lines, records_by_id
from autorubric_cli.judges.policy.preflight import print_warnings
from autorubric_cli.judges.policy.providers import sent_params
from autorubric_cli.judges.policy.spend import BudgetReached
from autorubric_cli.judges.prompt_caching import caching_kind
from autorubric_cli.judges.transports.simulated import is_simulated as is_simulated_judge
from autorubric_cli.loading.dataset import iter_items


def is_simulated(config: LLMConfig) -> bool:
    return any(is_simulated_judge(j.model) for j in config.judges)


def limited(items: Iterator[Item], limit: int | None) -> Iterator[Item]:
    return items if limit is None else itertools.islice(items, limit)


def _make_grader(
    rubric: Rubric, seed: int, base_dir: Path, cache_dir: Path | None, directory: Path
) -> Any:
    """The run's grader. With `workers: N` its worker processes are spawned first, so that
    litellm's import there overlaps with everything this process still does before a call."""
    from autorubric_cli.grading.grader import CriterionGrader
    from autorubric_cli.judges.cache import CallCache, cache_path

    budget = spend_cap(rubric.grader, directory / ITEMS)
    workers = worker_pool(rubric.grader)
    try:
        cache = CallCache(cache_path(cache_dir)) if rubric.grader.cache else None
        batches = batch_coordinator(directory, rubric.grader)
        return CriterionGrader(
            rubric,
            seed=seed,
            base_dir=base_dir,
            cache=cache,
            batches=batches,
            workers=workers,
            budget=budget,
        )
    except BaseException:
        if workers is not None:
            workers.terminate()
        raise


def worker_pool(config: LLMConfig) -> Any:
    """Worker processes for the litellm calls (judges/transports/workers.py); None when `workers:
    0` or when no judge calls litellm directly (simulated or batched judges). `workers: N` starts
    them now; `auto` starts them only if this process gets too busy."""
    from autorubric_cli.judges.batch.transport import batch_enabled
    from autorubric_cli.judges.transports.workers import WorkerPool, cores

    direct = [
        j for j in config.judges if not is_simulated_judge(j.model) and not batch_enabled(config, j)
    ]
    if config.workers == 0 or not direct:
        return None
    if config.workers == "auto":
        return WorkerPool(direct, config.timeout, cores(), spill=True)
    pool = WorkerPool(direct, config.timeout, config.workers)
    pool.start()
    return pool


def _import_metrics() -> None:
    import autorubric_cli.metrics  # noqa: F401


def _preload_report() -> threading.Thread:
    """Import the metrics the end-of-run report needs (numpy, scipy: seconds) in a thread while
    the run grades: a run mostly waits on its judges, so the import then costs it nothing."""
    thread = threading.Thread(target=_import_metrics, daemon=True)
    thread.start()
    return thread


@contextlib.contextmanager
def _stopping_workers(grader: Any) -> Iterator[None]:
    """Before the event loop runs, a failure (a busy directory, a full disk) stops the worker
    processes at once instead of leaving them to notice the closed socket."""
    try:
        yield
    except BaseException:
        if grader.workers is not None:
            grader.workers.terminate()
        raise


def _fatal_errors() -> tuple[type[BaseException], ...]:
    from autorubric_cli.judges import JudgeAuthError, JudgeUnavailable
    from autorubric_cli.judges.transports.workers import WorkerPoolFailed

    return (JudgeAuthError, JudgeUnavailable, WorkerPoolFailed)


def start_run(rubric_path: Path, dataset_path: Path, options: RunOptions) -> Path:
    """Validate everything, then create the directory and grade. Returns the directory."""
    plan = preflight(rubric_path, dataset_path, options)  # every refusal before a call
    print_warnings(plan.warnings)
    rubric, fields, shard, directory = plan.rubric, plan.fields, plan.shard, plan.directory
    config = rubric.grader
    grader = _make_grader(rubric, config.seed, rubric_path.parent, options.cache_dir, directory)
    with _stopping_workers(grader):
        if shard is not None:
            shard.dataset_items = plan.covered
        with claim_new_directory(directory, in_use_message(directory)):
            now = utc_now()
            manifest = Manifest(
                autorubric_version=__version__,
                name=directory.name,
                command=sys.argv,
                created=now,
                updated=now,
                status="running",
                seed=config.seed,
                config=config.model_dump(mode="json"),
                rubric=InputFile(path=str(rubric_path.resolve()), sha256=sha256_file(rubric_path)),
                dataset=InputFile(
                    path=str(dataset_path.resolve()), sha256=sha256_file(dataset_path)
                ),
                dataset_fields=fields,
                items_total=plan.selected,
                limit=options.limit,
                simulated=is_simulated(config),
                shard=shard,
                sent=sent_params(config.judges),  # what each judge is sent (providers.py)
            )
            with _fresh_until_saved(directory):
                with writing(directory / RUBRIC_COPY):
                    shutil.copyfile(rubric_path, directory / RUBRIC_COPY)
                save_manifest(directory, manifest)
            with _resumable(directory):
                _execute(
                    directory, manifest, rubric, grader, set(), {}, dataset_path, options.grace_s
                )
    return directory


@contextlib.contextmanager
def _fresh_until_saved(directory: Path) -> Iterator[None]:
    """Before the first manifest is saved there is nothing to resume: on a failed write, undo
    the rubric copy so the same `run` can simply be started again."""
    try:
        yield
    except StorageError as exc:
        (directory / RUBRIC_COPY).unlink(missing_ok=True)
        raise StorageError(
            f"{exc.message}; free space or fix permissions, then run again", path=exc.path
        ) from None


@contextlib.contextmanager
def _resumable(directory: Path) -> Iterator[None]:
    """A failed write once the run exists: every record already written is kept."""
    try:
        yield
    except StorageError as exc:
        raise StorageError(
            f"{exc.message}; free space or fix permissions, then: autorubric resume {directory}",
            path=exc.path,
        ) from None


def check_unchanged(manifest: Manifest, directory: Path) -> None:
    """Resume only against the exact inputs the run started with."""
    try:
        _check_hashes(manifest, directory)
    except OSError as exc:
        raise InputError(
            f"cannot read an input recorded in manifest.json: {exc.strerror}",
            path=str(directory / "manifest.json"),
        ) from None


def _check_hashes(manifest: Manifest, directory: Path) -> None:
    dataset = Path(manifest.dataset.path)
    if not dataset.is_file():
        raise InputError("the dataset this experiment was run on is gone", path=str(dataset))
    if sha256_file(dataset) != manifest.dataset.sha256:
        raise InputError(
            "dataset changed since the run started (SHA-256 differs); "
            "start a new run instead of resuming",
            path=str(dataset),
        )
    for rubric in (directory / RUBRIC_COPY, Path(manifest.rubric.path)):
        if rubric.is_file() and sha256_file(rubric) != manifest.rubric.sha256:
            raise InputError(
                "rubric changed since the run started (SHA-256 differs); "
                "start a new run instead of resuming",
                path=str(rubric),
            )


def recorded(
    directory: Path, retry_errors: bool, issues: ReadIssues, criteria: list[Criterion]
) -> tuple[set[str], dict[str, ItemRecord]]:
    """Ids not to grade again, and (with retry_errors) the errored records to grade again."""
    latest = latest_lines(directory / ITEMS, issues)
    errored = {i for i, (_, status) in latest.items() if status == "error"}
    done = set(latest) - errored if retry_errors else set(latest)
    priors = records_by_id(directory / ITEMS, latest, errored, criteria) if retry_errors else {}
    return done, priors


def with_session_flags(
    rubric: Rubric,
    concurrency: int | None,
    no_cache: bool,
    no_batch: bool = False,
    max_cost: float | None = None,
) -> Rubric:
    """`resume`'s flags that may differ from the run's: concurrency, --no-cache, --no-batch,
    --max-cost (without it, the cap the run was started with, from the manifest)."""
    update: dict[str, Any] = {}
    if max_cost is not None:
        update["max_cost"] = max_cost
    if concurrency is not None:
        update["concurrency"] = concurrency
    if no_cache:
        update["cache"] = False
    grader = rubric.grader.model_copy(update=update)
    if no_batch:
        grader = without_batches(grader)
    return rubric.model_copy(update={"grader": grader})


def resume_run(
    directory: Path,
    *,
    retry_errors: bool,
    concurrency: int | None,
    grace_s: float = GRACE_S,
    no_cache: bool = False,
    cache_dir: Path | None = None,
    no_batch: bool = False,
    max_cost: float | None = None,
) -> list[str]:
    """Grade what is missing (and errored, with retry_errors). Returns read warnings.

    The writer lock is taken first, before anything is read: a second `resume` exits 2 at once
    and never sees (or grades) the items the first is grading."""
    load_manifest(directory)  # not an experiment: say so before making a lock file in it
    with writer_lock(directory), _resumable(directory):
        return _resume_locked(
            directory, retry_errors, concurrency, grace_s, no_cache, cache_dir, no_batch, max_cost
        )


def _resume_locked(
    directory: Path,
    retry_errors: bool,
    concurrency: int | None,
    grace_s: float,
    no_cache: bool,
    cache_dir: Path | None,
    no_batch: bool,
    max_cost: float | None,
) -> list[str]:
    from autorubric_cli.experiment.opened import open_experiment

    experiment = open_experiment(directory)
    manifest = experiment.manifest
    check_unchanged(manifest, directory)
    rubric = experiment.rubric
    if max_cost is None:
        max_cost = manifest.config.get("max_cost")  # the cap the run was started with
    rubric = with_session_flags(rubric, concurrency, no_cache, no_batch, max_cost)
    issues = ReadIssues()
    done, priors = recorded(directory, retry_errors, issues, rubric.criteria)
    grader = _make_grader(
        rubric, manifest.seed, Path(manifest.rubric.path).parent, cache_dir, directory
    )
    with _stopping_workers(grader):
        manifest.status = "running"
        manifest.error = manifest.reason = None
        manifest.config["max_cost"] = rubric.grader.max_cost
        save_manifest(directory, manifest)
        dataset = Path(manifest.dataset.path)
        _execute(directory, manifest, rubric, grader, done, priors, dataset, grace_s)
    return issues.warnings(directory / ITEMS)


def _execute(
    directory: Path,
    manifest: Manifest,
    rubric: Rubric,
    grader: Any,
    done: set[str],
    priors: dict[str, ItemRecord],
    dataset: Path,
    grace_s: float,
) -> None:
    all_items = iter_items(dataset, rubric, manifest.dataset_fields)
    planned = in_shard(limited(all_items, manifest.limit), manifest.shard)
    items = (i for i in planned if i.id not in done)
    per_item = rubric.grader.llm_calls == "per_item"
    calls = (1 if per_item else len(rubric.criteria)) * sum(j.samples for j in rubric.grader.judges)
    staged = not per_item and any(caching_kind(j) for j in rubric.grader.judges)
    window = items_in_flight(rubric.grader.concurrency, calls, staged)
    window = batch_window(rubric.grader, len(rubric.criteria), window)
    started = utc_now()
    already = min(len(done), manifest.items_total)
    progress = Progress(manifest.items_total, already, grader.stats, manifest.simulated)
    outcome = RunOutcome()
    preloading = _preload_report()
    try:
        outcome = asyncio.run(
            _run_async(grader, items, directory, progress, window, grace_s, priors)
        )
    except KeyboardInterrupt:
        outcome.interrupted = True
        raise
    except BaseException as exc:  # the manifest must not say `completed` after a failure
        outcome.fatal = exc
        raise
    finally:
        preloading.join()  # never leave an import running into interpreter shutdown
        manifest.runs.append(
            {
                "started": started,
                "finished": utc_now(),
                "graded": outcome.graded,
                "errored": outcome.errored,
                "interrupted": outcome.interrupted,
            }
        )
        if isinstance(outcome.fatal, BudgetReached):
            recorded_items = len(done) + outcome.graded
            message = budget_message(rubric.grader.max_cost or 0.0, recorded_items)
            manifest.status, manifest.error, manifest.reason = "failed", message, message
            outcome.fatal = BudgetStop(message)
        elif outcome.fatal is not None:
            manifest.status, manifest.error = "failed", str(outcome.fatal)
        elif outcome.interrupted:
            manifest.status = "interrupted"
        elif manifest.status == "running":
            manifest.status = "completed"
        save_manifest(directory, manifest)
    if isinstance(outcome.fatal, StorageError | BudgetStop):
        raise outcome.fatal
    if outcome.fatal is not None:
        raise JudgeRunStopped(f"{outcome.fatal}; fix it, then: autorubric resume {directory}")
    if outcome.interrupted:
        raise RunInterrupted(directory)


async def _run_async(
    grader: Any,
    items: Iterator[Item],
    directory: Path,
    progress: Progress,
    window: int,
    grace_s: float,
    priors: dict[str, ItemRecord],
) -> RunOutcome:
    stop = StopSignals(
        notify=lambda: progress.say(
            "[yellow]stopping: finishing in-flight calls (press Ctrl-C again to exit now)[/]"
        )
    )
    writer = RecordWriter(directory / ITEMS)
    try:
        with stop.installed(), progress:
            return await run_items(
                grader,
                items,
                writer,
                progress,
                stop,
                window=window,
                grace_s=grace_s,
                priors=priors,
                fatal_errors=_fatal_errors(),
                budget_errors=(BudgetReached,),
            )
    finally:
        try:
            writer.close()
        finally:
            await grader.aclose()


class JudgeRunStopped(RunStopped):
    """A judge failed in a way retries cannot fix (e.g. authentication); the run stopped."""
