"""`run` and `resume`: one session each on an experiment directory.

A session checks its inputs, builds the grader (experiment/loop.py), holds the directory's
writer lock, writes through one `RunRecorder` (experiment/lifecycle.py: start → record →
finish) and, once the loop has ended, raises what stopped it. Options are merged into the
configuration once (experiment/flags.py); the directory is named by experiment/naming.py.
"""

from __future__ import annotations

from pathlib import Path

from autorubric_cli.errors import BudgetStop, RunInterrupted, RunStopped, StorageError
from autorubric_cli.experiment.flags import resumed_config, with_switches
from autorubric_cli.experiment.lifecycle import RunRecorder, recorded, resumable
from autorubric_cli.experiment.lock import claim_new_directory, writer_lock
from autorubric_cli.experiment.loop import grade_pending, make_grader, stopping_workers
from autorubric_cli.experiment.manifest import ITEMS, load_manifest
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.experiment.options import GRACE_S, SessionFlags
from autorubric_cli.experiment.options import RunOptions as RunOptions  # re-exported
from autorubric_cli.experiment.preflight import in_use_message, preflight
from autorubric_cli.experiment.replace import empty_experiment, start_over_command
from autorubric_cli.experiment.runner import RunOutcome
from autorubric_cli.experiment.store import ReadIssues
from autorubric_cli.judges.policy.preflight import print_warnings


class JudgeRunStopped(RunStopped):
    """A judge failed in a way retries cannot fix (e.g. authentication); the run stopped."""


def start_run(rubric_path: Path, dataset_path: Path, options: RunOptions) -> Path:
    """Validate everything, then create the directory and grade. Returns the directory."""
    plan = preflight(rubric_path, dataset_path, options)  # every refusal before a call
    print_warnings(plan.warnings)
    rubric, directory = plan.rubric, plan.directory
    grader = make_grader(
        rubric, rubric.grader.seed, rubric_path.parent, options.cache_dir, directory
    )
    if options.replace:
        empty_experiment(directory)
    with stopping_workers(grader), claim_new_directory(directory, in_use_message(directory)):
        recorder = RunRecorder.new(plan)
        recorder.start()
        with resumable(directory):
            outcome = grade_pending(
                recorder, rubric, grader, set(), {}, dataset_path, options.grace_s
            )
            raise_stop(directory, outcome, start_over_command(directory, recorder.manifest))
    return directory


def resume_run(
    directory: Path,
    *,
    retry_errors: bool,
    concurrency: int | None = None,
    grace_s: float = GRACE_S,
    cache: bool = True,
    cache_dir: Path | None = None,
    batch: bool = True,
    max_cost: float | None = None,
    timeout: float | None = None,
    max_attempts: int | None = None,
) -> list[str]:
    """Grade what is missing (and errored, with retry_errors). Returns read warnings.

    The writer lock is taken first, before anything is read: a second `resume` exits 2 at once
    and never sees (or grades) the items the first is grading."""
    load_manifest(directory)  # not an experiment: say so before making a lock file in it
    with writer_lock(directory), resumable(directory):
        experiment = open_experiment(directory)
        values = SessionFlags(concurrency, timeout, max_attempts, max_cost)
        config, lock = resumed_config(experiment, values)
        session = with_switches(config, cache=cache, batch=batch)
        rubric = experiment.rubric.model_copy(update={"grader": session})
        recorder = RunRecorder.resumed(experiment, config, session, lock)
        issues = ReadIssues()
        done, priors = recorded(directory, retry_errors, issues, rubric.criteria)
        manifest = experiment.manifest
        base_dir = Path(manifest.rubric.path).parent
        grader = make_grader(rubric, manifest.seed, base_dir, cache_dir, directory)
        with stopping_workers(grader):
            recorder.start()
            dataset = Path(manifest.dataset.path)
            outcome = grade_pending(recorder, rubric, grader, done, priors, dataset, grace_s)
            raise_stop(directory, outcome, start_over_command(directory, manifest))
        return issues.warnings(directory / ITEMS)


def raise_stop(directory: Path, outcome: RunOutcome, start_over: str) -> None:
    """Raise what stopped the loop (the manifest already says it). A judge that cannot be used
    may be fixed outside (a key, a server) or only with other judges: both ways are named."""
    if isinstance(outcome.fatal, StorageError | BudgetStop):
        raise outcome.fatal
    if outcome.fatal is not None:
        raise JudgeRunStopped(
            f"{outcome.fatal}; fix it, then: autorubric resume {directory}; "
            f"or start over with other judges: {start_over}"
        )
    if outcome.interrupted:
        raise RunInterrupted(directory)
