"""`autorubric pairwise` and `resume` of a pairwise experiment: one session each, through the
run's engine (experiment/: the lock, the recorder and its manifest, the runner, the spend cap,
batches and worker processes), with the pairwise grader as the runner's work.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

from autorubric_cli.core.pairs import Swap
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.batches import batch_window
from autorubric_cli.experiment.flags import with_switches, with_values
from autorubric_cli.experiment.lifecycle import RunRecorder, resumable
from autorubric_cli.experiment.lock import claim_new_directory, writer_lock
from autorubric_cli.experiment.loop import build_grader, grade_units, stopping_workers
from autorubric_cli.experiment.manifest import ITEMS, Manifest
from autorubric_cli.experiment.options import GRACE_S, SessionFlags
from autorubric_cli.experiment.preflight import in_use_message
from autorubric_cli.experiment.replace import empty_experiment
from autorubric_cli.experiment.runner import items_in_flight
from autorubric_cli.experiment.session import raise_stop
from autorubric_cli.experiment.shard import Shard
from autorubric_cli.experiment.store import ReadIssues
from autorubric_cli.judges.policy.preflight import print_warnings
from autorubric_cli.judges.policy.providers import sent_params
from autorubric_cli.judges.prompt_caching import caching_kind
from autorubric_cli.judges.transports.simulated import simulated_run
from autorubric_cli.pairwise.checks import pairwise_plan
from autorubric_cli.pairwise.grader import PairGrader
from autorubric_cli.pairwise.opened import (
    OpenedPairwise,
    check_rubric_unchanged,
    open_pairwise,
    recorded_comparisons,
)
from autorubric_cli.pairwise.plan import PairPlan, PairwiseOptions, Unit, comparisons
from autorubric_cli.pairwise.requests import questions_of
from autorubric_cli.pairwise.systems import System, read_system


def start_pairwise(rubric_path: Path, options: PairwiseOptions) -> Path:
    """Check everything, then create the directory and judge every comparison."""
    plan = pairwise_plan(rubric_path, options)
    print_warnings(plan.base.warnings)
    directory, rubric = plan.directory, plan.rubric
    grader = new_grader(rubric, plan.setup.swap, rubric_path.parent, options.cache_dir, directory)
    if options.replace:
        empty_experiment(directory)
    with stopping_workers(grader), claim_new_directory(directory, in_use_message(directory)):
        recorder = RunRecorder(directory, new_manifest(plan), rubric.grader, rubric_path)
        recorder.start()
        with resumable(directory):
            units = plan.units()
            outcome = grade_units(
                recorder, rubric, grader, units, window(rubric), 0, {}, options.grace_s
            )
            raise_stop(directory, outcome, start_over(plan.base.rubric_path, options, directory))
    return directory


def resume_pairwise(
    directory: Path,
    *,
    retry_errors: bool,
    concurrency: int | None,
    grace_s: float = GRACE_S,
    cache: bool = True,
    cache_dir: Path | None = None,
    batch: bool = True,
    max_cost: float | None = None,
) -> list[str]:
    """Judge what is missing (and what errored, with `retry_errors`); returns read warnings.
    The lock is taken before anything is read, as `resume` of a run takes it."""
    with writer_lock(directory), resumable(directory):
        opened = open_pairwise(directory)
        check_rubric_unchanged(opened)
        values = with_values(opened.rubric.grader, SessionFlags(concurrency, max_cost=max_cost))
        session = with_switches(values, cache=cache, batch=batch)
        rubric = opened.rubric.model_copy(update={"grader": session})
        opened.manifest.config["max_cost"] = rubric.grader.max_cost
        systems = unchanged_systems(opened)
        issues = ReadIssues()
        done, priors = recorded_comparisons(directory, retry_errors, issues)
        base_dir = Path(opened.manifest.rubric.path).parent
        grader = new_grader(rubric, opened.setup.swap, base_dir, cache_dir, directory)
        with stopping_workers(grader):
            recorder = RunRecorder(directory, opened.manifest, rubric.grader)
            recorder.start()
            units = pending(systems, opened.manifest.shard, done)
            already = min(len(done), opened.manifest.items_total)
            outcome = grade_units(
                recorder, rubric, grader, units, window(rubric), already, priors, grace_s
            )
            raise_stop(directory, outcome, f"autorubric resume {directory}")
        return issues.warnings(directory / ITEMS)


def pending(systems: list[System], shard: Shard | None, done: set[str]) -> Iterator[Unit]:
    return (unit for unit in comparisons(systems, shard) if unit.id not in done)


def unchanged_systems(opened: OpenedPairwise) -> list[System]:
    """The systems, read again; each must be what it was when the comparison started."""
    systems = []
    for source in opened.setup.systems:
        system = read_system(Path(source.path), source.name, opened.rubric, opened.setup.fields)
        if system.source.sha256 != source.sha256:
            raise InputError(
                f"system {source.name!r} changed since the comparison started (SHA-256 "
                "differs); start a new comparison instead of resuming",
                path=source.path,
            )
        systems.append(system)
    return systems


def new_grader(
    rubric: Rubric, swap: Swap, base_dir: Path, cache_dir: Path | None, directory: Path
) -> PairGrader:
    build = partial(PairGrader, swap=swap)
    return build_grader(build, rubric, rubric.grader.seed, base_dir, cache_dir, directory)


def window(rubric: Rubric) -> int:
    """Comparisons in flight: enough to keep every call slot (or batch) busy."""
    config = rubric.grader
    per_order = len(questions_of(rubric))
    calls = 2 * per_order * sum(j.samples for j in config.judges)
    staged = any(caching_kind(j) for j in config.judges)
    return batch_window(config, 2 * per_order, items_in_flight(config.concurrency, calls, staged))


def new_manifest(plan: PairPlan) -> Manifest:
    """The manifest of a new comparison: the first system's answers file stands as its
    `dataset`; every system, with its SHA-256, is under `pairwise`."""
    config = plan.config
    first = plan.systems[0].source
    answers = Path(first.path) if first.kind == "dataset" else Path(first.path) / ITEMS
    shard = plan.shard
    if shard is not None:
        covered = sum(1 for _ in plan.all_units())
        shard = Shard(index=shard.index, count=shard.count, dataset_items=covered)
    return Manifest.begin(
        plan.directory.name,
        "running",
        plan.base.rubric_path,
        answers,
        seed=config.seed,
        config=config.model_dump(mode="json"),
        dataset_fields=plan.setup.fields,
        items_total=sum(1 for _ in plan.units()),
        simulated=simulated_run(config.judges),
        shard=shard,
        sent=sent_params(config.judges),
        kind="pairwise",
        pairwise=plan.setup.model_dump(mode="json"),
    )


def start_over(rubric: Path, options: PairwiseOptions, directory: Path) -> str:
    systems = " ".join(str(p) for p in options.systems)
    return f"autorubric pairwise {rubric} {systems} --out {directory} --replace"
