"""The public Python API: run, resume and read experiments from a script or a notebook.

The CLI's `run`, `resume`, `report` and `compare` do the same work through the same functions
below this module (experiment sessions, the report fold, the comparison); what the API adds is
plain values instead of printed tables and exit codes. Failures raise the exceptions the CLI
maps to exit codes: `InputError` (exit 2: invalid input, a judge that cannot be used),
`RunInterrupted` (exit 130), `JudgeRunStopped` (exit 2: a judge failed every call).

The async twins (`arun`, `aresume`) grade in a worker thread with its own event loop, so they
can be awaited inside a loop that is already running (Jupyter, an async web app). Signal
handlers are installed only when grading runs in the main thread: in a worker thread the
caller's process keeps its own Ctrl-C behaviour.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict, Unpack

from autorubric_cli.core.config import (
    CannotAssessConfig,
    CannotAssessStrategy,
    FewShotConfig,
    GateCheck,
    JudgeSpec,
    LengthPenalty,
    LLMConfig,
)
from autorubric_cli.core.items import Item, Submission
from autorubric_cli.core.records import CriterionVerdict, ItemRecord
from autorubric_cli.core.rubric import Criterion, CriterionOption, Rubric
from autorubric_cli.errors import (
    AutorubricError,
    InputError,
    JudgeError,
    RunInterrupted,
    RunStopped,
    StorageError,
)
from autorubric_cli.experiment.manifest import ITEMS, REPORT, Manifest, write_atomic
from autorubric_cli.experiment.opened import OpenedExperiment
from autorubric_cli.experiment.opened import open_experiment as open_directory
from autorubric_cli.experiment.options import RunOptions
from autorubric_cli.experiment.session import JudgeRunStopped, resume_run, start_run
from autorubric_cli.experiment.store import ReadIssues, iter_latest_records
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.loading.dataset import iter_items
from autorubric_cli.loading.rubric_loader import load_rubric
from autorubric_cli.report.build import build_report_and_fold
from autorubric_cli.report.compare import compare_result
from autorubric_cli.report.compare_options import CompareOptions
from autorubric_cli.report.models import Report
from autorubric_cli.report.models_compare import CompareResult

PathLike = str | Path


class RunKeywords(TypedDict, total=False):
    """The keyword arguments of `run`, as `arun` takes them."""

    judges: list[str] | None
    name: str | None
    out: PathLike | None
    seed: int | None
    concurrency: int | None
    limit: int | None
    fields: dict[str, str] | None
    cache: bool
    cache_dir: PathLike | None
    llm_calls: str | None
    shard: str | None
    batch: bool
    timeout: float | None
    max_attempts: int | None


class ResumeKeywords(TypedDict, total=False):
    """The keyword arguments of `resume`, as `aresume` takes them."""

    retry_errors: bool
    concurrency: int | None
    cache: bool
    cache_dir: PathLike | None
    batch: bool
    timeout: float | None
    max_attempts: int | None


@dataclass(frozen=True)
class Experiment:
    """An experiment directory (docs/reference/experiment-directory.md), read on demand: nothing is
    cached between calls, so a run still writing to it is seen as it is now."""

    path: Path

    def _opened(self) -> OpenedExperiment:
        return open_directory(self.path)

    @property
    def manifest(self) -> Manifest:
        return self._opened().manifest

    @property
    def rubric(self) -> Rubric:
        """The rubric with the resolved configuration the run used."""
        return self._opened().rubric

    @property
    def status(self) -> str:
        return self.manifest.status

    def report(self, *, fail_under: float | None = None, cluster: str | None = None) -> Report:
        """The typed report; `.to_json()` is what `report --format json` prints. Writes
        nothing. `cluster` (`metadata.KEY`) is `report --cluster`: clustered standard errors,
        over the rubric's `report.cluster` when given."""
        extra: list[GateCheck] = []
        if fail_under is not None:
            extra.append(GateCheck(metric="score.mean", min=fail_under))
        built, _ = build_report_and_fold(self._opened(), extra_checks=extra, cluster=cluster)
        return built

    def items(self) -> Iterator[ItemRecord]:
        """The item records, the newest line per id (docs/reference/experiment-directory.md), in the
        order they finished."""
        opened = self._opened()
        return iter_latest_records(self.path / ITEMS, ReadIssues(), opened.rubric.criteria)

    def compare(
        self,
        baseline: Experiment | PathLike,
        *,
        max_drop: float | None = None,
        fail_on_regression: bool = False,
        alpha: float = 0.05,
        cluster: str | None = None,
    ) -> CompareResult:
        """This experiment (NEW) against `baseline` (BASE), typed; `.to_json()` is what
        `compare --format json` prints. `cluster` is `compare --cluster`."""
        base = baseline.path if isinstance(baseline, Experiment) else Path(baseline)
        options = CompareOptions(
            max_drop=max_drop, fail_on_regression=fail_on_regression, alpha=alpha, cluster=cluster
        )
        return compare_result(base, self.path, options)


def open_experiment(path: PathLike) -> Experiment:
    """An existing experiment directory; raises InputError when it is not one."""
    directory = Path(path)
    open_directory(directory)  # fail now, not on first use
    return Experiment(directory)


def load_dataset(
    path: PathLike, rubric: Rubric, *, fields: dict[str, str] | None = None
) -> list[Item]:
    """Every item of a dataset file (any docs/reference/dataset-files.md format), validated against
    `rubric`."""
    return list(iter_items(path, rubric, fields))


def run(
    rubric: PathLike,
    dataset: PathLike,
    *,
    judges: list[str] | None = None,
    name: str | None = None,
    out: PathLike | None = None,
    seed: int | None = None,
    concurrency: int | None = None,
    limit: int | None = None,
    fields: dict[str, str] | None = None,
    cache: bool = True,
    cache_dir: PathLike | None = None,
    llm_calls: str | None = None,
    shard: str | None = None,
    batch: bool = False,
    timeout: float | None = None,
    max_attempts: int | None = None,
) -> Experiment:
    """Grade `dataset` with the rubric file `rubric`, as `autorubric run` does; the experiment
    directory is `out`, else `experiments/<name>`, else one named after the rubric and time.
    Writes `report.json` at the end."""
    _outside_event_loop("run")
    options = RunOptions(
        judges=list(judges or []),
        name=name,
        out=None if out is None else Path(out),
        seed=seed,
        concurrency=concurrency,
        limit=limit,
        fields=[f"{ours}={theirs}" for ours, theirs in (fields or {}).items()],
        cache=cache,
        cache_dir=None if cache_dir is None else Path(cache_dir),
        llm_calls=llm_calls,
        shard=shard,
        batch=batch,
        timeout=timeout,
        max_attempts=max_attempts,
    )
    directory = start_run(Path(rubric), Path(dataset), options)
    return _finished(directory)


def resume(
    path: PathLike,
    *,
    retry_errors: bool = False,
    concurrency: int | None = None,
    cache: bool = True,
    cache_dir: PathLike | None = None,
    batch: bool = True,
    timeout: float | None = None,
    max_attempts: int | None = None,
) -> Experiment:
    """Grade what `path` is missing (and its errored items with `retry_errors`), as
    `autorubric resume` does; never calls a judge for an item already recorded. `concurrency`,
    `timeout` and `max_attempts` override the recorded settings (and are kept)."""
    _outside_event_loop("resume")
    directory = Path(path)
    resume_run(
        directory,
        retry_errors=retry_errors,
        concurrency=concurrency,
        cache=cache,
        cache_dir=None if cache_dir is None else Path(cache_dir),
        batch=batch,
        timeout=timeout,
        max_attempts=max_attempts,
    )
    return _finished(directory)


def _outside_event_loop(name: str) -> None:
    """`run` and `resume` start an event loop of their own: inside a running one (Jupyter,
    async code) say to await their twins, before any coroutine exists."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RuntimeError(
        f"autorubric_cli.{name}() cannot be called from a running event loop (Jupyter, async "
        f"code): use `await autorubric_cli.a{name}(...)` there"
    )


async def arun(rubric: PathLike, dataset: PathLike, **options: Unpack[RunKeywords]) -> Experiment:
    """`run`, awaitable inside a running event loop (the grading has a loop of its own)."""
    return await asyncio.to_thread(run, rubric, dataset, **options)


async def aresume(path: PathLike, **options: Unpack[ResumeKeywords]) -> Experiment:
    """`resume`, awaitable inside a running event loop."""
    return await asyncio.to_thread(resume, path, **options)


def _finished(directory: Path) -> Experiment:
    """`report.json` rewritten at the end of a run (docs/reference/experiment-directory.md), as the
    CLI does."""
    finished = Experiment(directory)
    write_atomic(directory / REPORT, finished.report().to_json().encode())
    return finished


# The package's public names: `from autorubric_cli import NAME` reads them from here (the
# package root loads this module on first use), and the root's __init__.pyi gives type
# checkers the same list.
__all__ = [
    "AutorubricError",
    "CannotAssessConfig",
    "CannotAssessStrategy",
    "CompareResult",
    "Criterion",
    "CriterionGrader",
    "CriterionOption",
    "CriterionVerdict",
    "Experiment",
    "FewShotConfig",
    "InputError",
    "Item",
    "ItemRecord",
    "JudgeError",
    "JudgeRunStopped",
    "JudgeSpec",
    "LLMConfig",
    "LengthPenalty",
    "Report",
    "Rubric",
    "RunInterrupted",
    "RunStopped",
    "StorageError",
    "Submission",
    "aresume",
    "arun",
    "load_dataset",
    "load_rubric",
    "open_experiment",
    "resume",
    "run",
]
