"""An experiment directory's writes, behind one recorder: start → record → finish
(docs/reference/experiment-directory.md).

- `RunRecorder.new` describes a new run (its manifest, with the SHA-256 of its rubric and
  dataset, and the rubric's lock); `RunRecorder.resumed` continues one, whose inputs
  experiment/rubric_lock.py checked, with the configuration this session uses.
- `start`: manifest.json says `running` (a new run first copies its rubric into the directory).
- `items_writer`: items.jsonl opened for the loop's appends, one line per finished item
  (store.RecordWriter: whole lines, fsynced within a second).
- `finish`: the session's entry in `runs` (with the operational settings it used) and the
  status it ended with.

Also here, what a directory already holds: `recorded` (ids not to grade again) and
`pending_items` (the run's items without those).
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

from autorubric_cli.core.config import LLMConfig
from autorubric_cli.core.items import Item
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.core.settings import settings_of
from autorubric_cli.errors import BudgetStop, StorageError, writing
from autorubric_cli.experiment.manifest import (
    ITEMS,
    REPORT,
    REPORT_HTML,
    RUBRIC_COPY,
    Manifest,
    RubricLock,
    save_manifest,
    utc_now,
)
from autorubric_cli.experiment.opened import OpenedExperiment
from autorubric_cli.experiment.preflight import Plan
from autorubric_cli.experiment.replace import run_flags
from autorubric_cli.experiment.rubric_lock import lock_of
from autorubric_cli.experiment.runner import RunOutcome
from autorubric_cli.experiment.shard import planned_items
from autorubric_cli.experiment.store import ReadIssues, RecordWriter, latest_lines, records_by_id
from autorubric_cli.judges.policy.providers import sent_params
from autorubric_cli.judges.transports.simulated import simulated_run
from autorubric_cli.loading.rubric_loader import load_rubric


class RunRecorder:
    """The writes of one session on an experiment directory, in their order."""

    def __init__(
        self, directory: Path, manifest: Manifest, config: LLMConfig, rubric: Path | None = None
    ) -> None:
        self.directory = directory
        self.manifest = manifest
        self.settings = settings_of(config)  # what this session uses, for its `runs` entry
        self._rubric = rubric  # a new run's rubric file, copied into the directory by `start`
        self._started = utc_now()

    @classmethod
    def new(cls, plan: Plan) -> RunRecorder:
        """A new run of `plan`: its manifest, with the SHA-256 of the rubric and the dataset."""
        rubric_path, dataset_path, config = plan.rubric_path, plan.dataset_path, plan.config
        assert dataset_path is not None  # `run` always has a dataset
        if plan.shard is not None:
            plan.shard.dataset_items = plan.covered
        manifest = Manifest.begin(
            plan.directory.name,
            "running",
            rubric_path,
            dataset_path,
            seed=config.seed,
            config=config.model_dump(mode="json"),
            dataset_fields=plan.fields,
            items_total=plan.selected,
            limit=plan.options.limit,
            simulated=is_simulated(config),
            shard=plan.shard,
            sent=sent_params(config.judges),  # what each judge is sent (providers.py)
            rubric_lock=lock_of(load_rubric(rubric_path)),
            run_flags=run_flags(plan.options),
        )
        return cls(plan.directory, manifest, config, rubric_path)

    @classmethod
    def resumed(
        cls, experiment: OpenedExperiment, recorded: LLMConfig, session: LLMConfig, lock: RubricLock
    ) -> RunRecorder:
        """A session continuing `experiment` (its inputs checked by rubric_lock.py): the
        manifest records the configuration later sessions start from (`recorded`: edits and
        value flags applied) and the rubric's lock; `session` adds this session's switches."""
        experiment.manifest.config = recorded.model_dump(mode="json")
        experiment.manifest.rubric_lock = lock
        return cls(experiment.directory, experiment.manifest, session)

    def start(self) -> None:
        """manifest.json says `running`; a new run's rubric copy is written first."""
        manifest = self.manifest
        manifest.status = "running"
        manifest.error = manifest.reason = None
        if self._rubric is None:
            for stale in (REPORT, REPORT_HTML):  # written again at the end; never an old state
                with writing(self.directory / stale):
                    (self.directory / stale).unlink(missing_ok=True)
            save_manifest(self.directory, manifest)
        else:
            with _fresh_until_saved(self.directory):
                with writing(self.directory / RUBRIC_COPY):
                    shutil.copyfile(self._rubric, self.directory / RUBRIC_COPY)
                save_manifest(self.directory, manifest)
        self._started = utc_now()

    def items_writer(self) -> RecordWriter:
        """items.jsonl, opened for appending (the caller closes it)."""
        return RecordWriter(self.directory / ITEMS)

    def finish(self, outcome: RunOutcome) -> None:
        """The session's entry in `runs`, each judge's structured-output dialect at its end, and
        its status: `failed` (with the error; a spend-cap stop also with its reason),
        `interrupted`, or `completed`."""
        manifest = self.manifest
        for judge_id, dialect in outcome.dialects.items():  # a switch after a refusal
            manifest.sent.setdefault(judge_id, {})["structured_output"] = dialect
        manifest.runs.append(
            {
                "started": self._started,
                "finished": utc_now(),
                "graded": outcome.graded,
                "errored": outcome.errored,
                "interrupted": outcome.interrupted,
                "settings": self.settings,
            }
        )
        if isinstance(outcome.fatal, BudgetStop):
            manifest.status = "failed"
            manifest.error = manifest.reason = str(outcome.fatal)
        elif outcome.fatal is not None:
            manifest.status, manifest.error = "failed", str(outcome.fatal)
        elif outcome.interrupted:
            manifest.status = "interrupted"
        elif manifest.status == "running":
            manifest.status = "completed"
        save_manifest(self.directory, manifest)


def is_simulated(config: LLMConfig) -> bool:
    return simulated_run(config.judges)


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
def resumable(directory: Path) -> Iterator[None]:
    """A failed write once the run exists: every record already written is kept."""
    try:
        yield
    except StorageError as exc:
        raise StorageError(
            f"{exc.message}; free space or fix permissions, then: autorubric resume {directory}",
            path=exc.path,
        ) from None


def recorded(
    directory: Path, retry_errors: bool, issues: ReadIssues, criteria: list[Criterion]
) -> tuple[set[str], dict[str, ItemRecord]]:
    """Ids not to grade again, and (with retry_errors) the errored records to grade again."""
    latest = latest_lines(directory / ITEMS, issues)
    errored = {i for i, (_, status) in latest.items() if status == "error"}
    done = set(latest) - errored if retry_errors else set(latest)
    priors = records_by_id(directory / ITEMS, latest, errored, criteria) if retry_errors else {}
    return done, priors


def pending_items(
    dataset: Path, rubric: Rubric, manifest: Manifest, done: set[str]
) -> Iterator[Item]:
    """The run's items (its limit and shard, from the manifest) not recorded yet."""
    planned = planned_items(
        dataset, rubric, manifest.dataset_fields, manifest.limit, manifest.shard
    )
    return (item for item in planned if item.id not in done)
