"""`autorubric check`, `run` and `resume`: the commands that start or finish a run
(docs/reference/exit-codes.md, docs/guides/cache-and-cost.md, docs/guides/per-item.md,
docs/guides/batches.md).

The bodies they call are read from the `cli` face (`cli/__init__.pyi`), so `--help` loads
none of them.
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Annotated

import typer

from autorubric_cli.cli.guard import guarded
from autorubric_cli.cli.options import (
    Alpha,
    Baseline,
    BatchOpt,
    CacheDir,
    ClusterOpt,
    DryRun,
    EscalationRate,
    FailOnRegression,
    FailUnder,
    FieldOpt,
    Format,
    FormatOpt,
    JudgeOpt,
    Junit,
    LimitOpt,
    LLMCallsOpt,
    MaxAttemptsOpt,
    MaxCost,
    MaxDrop,
    MlflowOpt,
    NoBatch,
    NoCache,
    OtelOpt,
    ShardOpt,
    TimeoutOpt,
)
from autorubric_cli.errors import EXIT_OK, InputError

DATASET_HELP = "Dataset file: JSONL, JSON, CSV, Parquet or an Inspect AI log (.eval or .json)."


def check(
    rubric: Annotated[Path, typer.Argument(metavar="RUBRIC", help="Rubric YAML file.")],
    dataset: Annotated[
        Path | None,
        typer.Argument(metavar="DATASET", help=DATASET_HELP),
    ] = None,
    judge: JudgeOpt = None,
    fail_under: FailUnder = None,
    field: FieldOpt = None,
    limit: LimitOpt = None,
    llm_calls: LLMCallsOpt = None,
    shard: ShardOpt = None,
    batch: BatchOpt = False,
    no_env: Annotated[
        bool,
        typer.Option(
            "--no-env",
            help="Skip the environment checks (API key variables): for lint jobs without secrets.",
        ),
    ] = False,
    review: Annotated[
        bool,
        typer.Option(
            "--review",
            help="Also the rubric review that needs no judge: duplicate and near-duplicate "
            "requirements, overlong requirements, no penalty criterion (exit 1 when found).",
        ),
    ] = False,
) -> None:
    """Refuse everything `run` would refuse before its first call; calls no judge.

    The same checks as `run` and `run --dry-run` (rubric, flags, API key variables, dataset),
    so a passing `check` means `run` starts.
    """

    from autorubric_cli.cli.check import run_check
    from autorubric_cli.experiment.options import RunOptions

    def body() -> int:
        options = RunOptions(
            judges=judge or [],
            limit=limit,
            fields=field or [],
            llm_calls=None if llm_calls is None else llm_calls.value,
            shard=shard,
            batch=batch,
            fail_under=fail_under,
        )
        run_check(rubric, dataset, options, env=not no_env)
        if review:
            from autorubric_cli.cli.review_body import print_lint

            return print_lint(rubric)
        return EXIT_OK

    guarded(body)


def run(
    rubric: Annotated[Path, typer.Argument(help="Rubric YAML file.")],
    dataset: Annotated[Path, typer.Argument(help=DATASET_HELP)],
    judge: JudgeOpt = None,
    name: Annotated[
        str | None, typer.Option("--name", help="Experiment name under experiments/.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Experiment directory (any path).")
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", min=0, help="Seed for option shuffles.")
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option("--concurrency", min=1, help="Global cap on in-flight calls.")
    ] = None,
    timeout: TimeoutOpt = None,
    max_attempts: MaxAttemptsOpt = None,
    limit: LimitOpt = None,
    fail_under: FailUnder = None,
    format: FormatOpt = Format.table,
    junit: Junit = None,
    no_shuffle: Annotated[
        bool, typer.Option("--no-shuffle", help="Show options in rubric order.")
    ] = False,
    field: FieldOpt = None,
    no_cache: NoCache = False,
    cache_dir: CacheDir = None,
    dry_run: DryRun = False,
    baseline: Baseline = None,
    max_drop: MaxDrop = None,
    fail_on_regression: FailOnRegression = False,
    alpha: Alpha = 0.05,
    llm_calls: LLMCallsOpt = None,
    shard: ShardOpt = None,
    batch: BatchOpt = False,
    max_cost: MaxCost = None,
    otel: OtelOpt = False,
    mlflow: MlflowOpt = False,
    cluster: ClusterOpt = None,
    escalation_rate: EscalationRate = None,
    replace: Annotated[
        bool,
        typer.Option(
            "--replace",
            help="Start over: empty an existing experiment directory (one with manifest.json).",
        ),
    ] = False,
) -> None:
    """Grade DATASET with RUBRIC and write an experiment directory."""

    from autorubric_cli.cli.baseline_flags import baseline_gate
    from autorubric_cli.cli.export_body import run_mlflow_export
    from autorubric_cli.experiment.options import RunOptions
    from autorubric_cli.experiment.session import start_run
    from autorubric_cli.export.switches import run_exports

    def body() -> int:
        options = RunOptions(
            judges=judge or [],
            name=name,
            out=out,
            seed=seed,
            concurrency=concurrency,
            limit=limit,
            no_shuffle=no_shuffle,
            fields=field or [],
            cache=not no_cache,
            cache_dir=cache_dir,
            llm_calls=None if llm_calls is None else llm_calls.value,
            shard=shard,
            batch=batch,
            max_cost=max_cost,
            escalation_rate=escalation_rate,
            fail_under=fail_under,
            replace=replace,
            timeout=timeout,
            max_attempts=max_attempts,
        )
        exports = run_exports(otel, mlflow)  # a missing extra: an input error, first
        if dry_run:
            from autorubric_cli.cli.cache_body import dry_run_run

            return dry_run_run(rubric, dataset, options, format.value)
        if escalation_rate is not None:
            raise InputError("only used with --dry-run", key="--escalation-rate")
        gate = baseline_gate(baseline, max_drop, fail_on_regression, alpha, cluster)
        # Ctrl-C: RunInterrupted, no report. The report's modules load after the run (numpy and
        # scipy, preloaded by a thread while it grades): the first judge call does not wait.
        with exports:
            directory = start_run(rubric, dataset, options)
        from autorubric_cli.cli.baseline import finish_and_compare

        code = finish_and_compare(directory, format.value, fail_under, junit, gate, cluster=cluster)
        if mlflow:
            run_mlflow_export(directory)
        return code

    guarded(body)


def resume(
    directory: Annotated[Path, typer.Argument(help="Experiment directory.")],
    retry_errors: Annotated[
        bool,
        typer.Option("--retry-errors", help="Re-grade errored items (reusing their good votes)."),
    ] = False,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency", min=1, help="Global cap on in-flight calls (default: the run's)."
        ),
    ] = None,
    timeout: TimeoutOpt = None,
    max_attempts: MaxAttemptsOpt = None,
    fail_under: FailUnder = None,
    format: FormatOpt = Format.table,
    junit: Junit = None,
    no_cache: NoCache = False,
    cache_dir: CacheDir = None,
    dry_run: DryRun = False,
    baseline: Baseline = None,
    max_drop: MaxDrop = None,
    fail_on_regression: FailOnRegression = False,
    alpha: Alpha = 0.05,
    no_batch: NoBatch = False,
    max_cost: MaxCost = None,
    otel: OtelOpt = False,
    mlflow: MlflowOpt = False,
) -> None:
    """Finish an interrupted run; never calls a judge for an item already recorded.

    Its value flags (calls in flight, time limit, attempts, spend cap) override the recorded
    settings and are kept for later resumes; the rubric may have changed in its operational
    settings only.
    """
    from autorubric_cli.cli.baseline_flags import baseline_gate, refuse_unreachable
    from autorubric_cli.cli.export_body import run_mlflow_export
    from autorubric_cli.experiment.lock import lock_early
    from autorubric_cli.experiment.manifest import is_pairwise
    from autorubric_cli.experiment.opened import open_experiment
    from autorubric_cli.experiment.session import resume_run
    from autorubric_cli.export.switches import run_exports

    cache, batch = not no_cache, not no_batch  # the flags say off; every layer below says on

    def body() -> int:
        exports = run_exports(otel, mlflow)  # a missing extra: an input error, first
        if is_pairwise(directory):
            return resume_pairwise_dir()
        if dry_run:
            from autorubric_cli.cli.cache_body import dry_run_resume

            return dry_run_resume(directory, retry_errors, cache, cache_dir, format.value)
        with lock_early(directory):
            return resume_body(exports)

    def resume_pairwise_dir() -> int:
        from autorubric_cli.cli.pairwise_body import resume_pairwise_body

        flags: dict[str, object] = {"--dry-run": dry_run or None, "--baseline": baseline}
        flags |= {"--max-drop": max_drop, "--timeout": timeout, "--max-attempts": max_attempts}
        flags |= {"--fail-under": fail_under, "--junit": junit, "--otel": otel or None}
        flags |= {"--fail-on-regression": fail_on_regression or None, "--mlflow": mlflow or None}
        return resume_pairwise_body(
            directory,
            retry_errors=retry_errors,
            concurrency=concurrency,
            cache=cache,
            cache_dir=cache_dir,
            batch=batch,
            max_cost=max_cost,
            fmt=format.value,
            flags=flags,
        )

    def resume_body(exports: AbstractContextManager[object]) -> int:
        gate = baseline_gate(baseline, max_drop, fail_on_regression, alpha)
        refuse_unreachable(open_experiment(directory), fail_under)
        with exports:
            warnings = resume_run(  # Ctrl-C: RunInterrupted, no report
                directory,
                retry_errors=retry_errors,
                concurrency=concurrency,
                cache=cache,
                cache_dir=cache_dir,
                batch=batch,
                max_cost=max_cost,
                timeout=timeout,
                max_attempts=max_attempts,
            )
        for warning in warnings:
            print(f"autorubric: warning: {warning}", file=sys.stderr)
        from autorubric_cli.cli.baseline import finish_and_compare

        code = finish_and_compare(directory, format.value, fail_under, junit, gate)
        if mlflow:
            run_mlflow_export(directory)
        return code

    guarded(body)
