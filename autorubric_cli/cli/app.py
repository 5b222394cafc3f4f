"""Typer commands: parse flags, call one function below, render, exit code (SPEC §8).

Heavy modules (litellm, numpy, the grader) are imported inside commands so `--help` is instant.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from autorubric_cli.cli.cache_cmd import cache_app
from autorubric_cli.cli.guard import STATE, guarded
from autorubric_cli.cli.help_style import PlainHelpCommand, PlainHelpGroup
from autorubric_cli.cli.label_cmd import label_app
from autorubric_cli.cli.logs import install_warning_handler
from autorubric_cli.errors import EXIT_OK

app = typer.Typer(
    cls=PlainHelpGroup,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    help="Rubric-based LLM-as-a-judge evaluation: resumable, exact, CI-gated.",
)


class Format(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"
    csv = "csv"
    junit = "junit"
    html = "html"


class LLMCalls(StrEnum):
    per_criterion = "per_criterion"
    per_item = "per_item"


FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
FailUnder = Annotated[
    float | None, typer.Option("--fail-under", help="Gate: fail (exit 1) if score.mean < X.")
]
Junit = Annotated[Path | None, typer.Option("--junit", help="Also write a JUnit XML file here.")]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the call cache.")]
CacheDir = Annotated[
    Path | None,
    typer.Option("--cache-dir", help="Call cache directory (default: $AUTORUBRIC_CACHE_DIR)."),
]
Baseline = Annotated[
    Path | None,
    typer.Option("--baseline", help="Then compare with this experiment and gate on it."),
]
MaxDrop = Annotated[
    float | None,
    typer.Option("--max-drop", help="Compare gate: fail (exit 1) if score.diff < -X."),
]
FailOnRegression = Annotated[
    bool,
    typer.Option(
        "--fail-on-regression", help="Compare gate: fail if NEW is worse with Wilcoxon p < alpha."
    ),
]
Alpha = Annotated[float, typer.Option("--alpha", help="Significance level for the gate.")]
DryRun = Annotated[
    bool, typer.Option("--dry-run", help="Print the bill (calls, cache hits, cost); call nothing.")
]
MaxCost = Annotated[
    float | None,
    typer.Option(
        "--max-cost",
        min=0,
        help=(
            "USD: stop before a call would take the run's paid cost past it; "
            "resume with a higher cap continues."
        ),
    ),
]


def _print_version(value: bool) -> None:
    """--version is eager: it prints and exits before click looks for a command."""
    if value:
        from autorubric_cli import __version__

        print(f"autorubric {__version__}")
        raise typer.Exit(0)


@app.callback()
def main_callback(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", is_eager=True, callback=_print_version, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    STATE["debug"] = debug
    install_warning_handler()


FieldOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--field",
        metavar="TARGET=PATH",
        help="Read our field TARGET from the dataset's dotted PATH (repeatable).",
    ),
]


JudgeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--judge", metavar="MODEL", help="Judge model (repeatable); replaces grader.judges."
    ),
]
LimitOpt = Annotated[
    int | None,
    typer.Option("--limit", min=1, metavar="N", help="Grade only the first N items."),
]
LLMCallsOpt = Annotated[
    LLMCalls | None,
    typer.Option(
        "--llm-calls",
        help="per_criterion: one call per criterion; per_item: one call grades every criterion.",
    ),
]
ShardOpt = Annotated[
    str | None,
    typer.Option(
        "--shard",
        metavar="K/N",
        help="Grade only shard K of N (by a hash of `id`); see `merge`.",
    ),
]
BatchOpt = Annotated[bool, typer.Option("--batch", help="Submit through the provider's batch API.")]


@app.command(cls=PlainHelpCommand)
def check(
    rubric: Annotated[Path, typer.Argument(metavar="RUBRIC", help="Rubric YAML file.")],
    dataset: Annotated[
        Path | None,
        typer.Argument(metavar="[DATASET]", help="Dataset file (JSONL, JSON, CSV or Parquet)."),
    ] = None,
    judge: JudgeOpt = None,
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
) -> None:
    """Refuse everything `run` would refuse before its first call; calls no judge.

    The same checks as `run` and `run --dry-run` (rubric, flags, API key variables, dataset),
    so a passing `check` means `run` starts.
    """

    def body() -> int:
        from autorubric_cli.cli.check import run_check
        from autorubric_cli.experiment.options import RunOptions

        options = RunOptions(
            judges=judge or [],
            limit=limit,
            fields=field or [],
            llm_calls=None if llm_calls is None else llm_calls.value,
            shard=shard,
            batch=batch,
        )
        run_check(rubric, dataset, options, env=not no_env)
        return EXIT_OK

    guarded(body)


@app.command(cls=PlainHelpCommand)
def run(
    rubric: Annotated[Path, typer.Argument(help="Rubric YAML file.")],
    dataset: Annotated[Path, typer.Argument(help="Dataset file (JSONL, JSON, CSV or Parquet).")],
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
) -> None:
    """Grade DATASET with RUBRIC and write an experiment directory."""

    def body() -> int:
        # the report's modules (cli.finish) are imported after the run starts: a worker
        # process spawned first overlaps its litellm import with theirs
        from autorubric_cli.experiment.session import RunOptions, start_run

        options = RunOptions(
            judges=judge or [],
            name=name,
            out=out,
            seed=seed,
            concurrency=concurrency,
            limit=limit,
            no_shuffle=no_shuffle,
            fields=field or [],
            no_cache=no_cache,
            cache_dir=cache_dir,
            llm_calls=None if llm_calls is None else llm_calls.value,
            shard=shard,
            batch=batch,
            max_cost=max_cost,
        )
        if dry_run:
            from autorubric_cli.cli.cache_cmd import dry_run_run

            return dry_run_run(rubric, dataset, options, format.value)
        from autorubric_cli.cli.baseline import baseline_options, then_compare

        compare = baseline_options(baseline, max_drop, fail_on_regression, alpha)
        directory = start_run(rubric, dataset, options)  # Ctrl-C: RunInterrupted, no report
        from autorubric_cli.cli.finish import finish

        code = finish(directory, format.value, fail_under, junit, compact=True)
        return then_compare(baseline, directory, compare, format.value, junit, code)

    guarded(body)


@app.command(cls=PlainHelpCommand)
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
    no_batch: Annotated[
        bool,
        typer.Option("--no-batch", help="Finish with direct calls (finished batches are used)."),
    ] = False,
    max_cost: MaxCost = None,
) -> None:
    """Finish an interrupted run; never calls a judge for an item already recorded."""

    def body() -> int:
        if dry_run:
            from autorubric_cli.cli.cache_cmd import dry_run_resume

            return dry_run_resume(directory, retry_errors, no_cache, cache_dir, format.value)
        from autorubric_cli.experiment.lock import lock_early

        with lock_early(directory):
            return resume_body()

    def resume_body() -> int:
        from autorubric_cli.cli.baseline import baseline_options, then_compare
        from autorubric_cli.experiment.session import resume_run

        compare = baseline_options(baseline, max_drop, fail_on_regression, alpha)
        warnings = resume_run(  # Ctrl-C: RunInterrupted, no report
            directory,
            retry_errors=retry_errors,
            concurrency=concurrency,
            no_cache=no_cache,
            cache_dir=cache_dir,
            no_batch=no_batch,
            max_cost=max_cost,
        )
        from autorubric_cli.cli.finish import finish

        for warning in warnings:
            print(f"autorubric: warning: {warning}", file=sys.stderr)
        code = finish(directory, format.value, fail_under, junit, compact=True)
        return then_compare(baseline, directory, compare, format.value, junit, code)

    guarded(body)


@app.command(cls=PlainHelpCommand)
def merge(
    out: Annotated[Path, typer.Argument(help="New experiment directory for the merged result.")],
    sources: Annotated[list[Path], typer.Argument(help="Shard directories (run --shard K/N).")],
    allow_partial: Annotated[
        bool, typer.Option("--allow-partial", help="Merge even if shards are missing (warns).")
    ] = False,
    fail_under: FailUnder = None,
    format: FormatOpt = Format.table,
    junit: Junit = None,
) -> None:
    """Merge the shards of one run into one experiment, then report on it."""

    def body() -> int:
        from autorubric_cli.cli.merge_cmd import run_merge

        return run_merge(
            out,
            sources,
            allow_partial=allow_partial,
            fmt=format.value,
            fail_under=fail_under,
            junit=junit,
        )

    guarded(body)


@app.command(cls=PlainHelpCommand)
def report(
    directory: Annotated[Path, typer.Argument(help="Experiment directory.")],
    format: FormatOpt = Format.table,
    fail_under: FailUnder = None,
    junit: Junit = None,
    aggregation: Annotated[
        str | None,
        typer.Option(
            "--aggregation",
            metavar="METHOD",
            help="What-if: aggregate binary criteria's judges this way. "
            "One of: majority, weighted, unanimous, any.",
        ),
    ] = None,
    ordinal_aggregation: Annotated[
        str | None,
        typer.Option(
            "--ordinal-aggregation",
            metavar="METHOD",
            help="What-if: aggregate ordinal criteria's judges this way. "
            "One of: mean, median, weighted_mean, mode, min, max.",
        ),
    ] = None,
    nominal_aggregation: Annotated[
        str | None,
        typer.Option(
            "--nominal-aggregation",
            metavar="METHOD",
            help="What-if: aggregate nominal criteria's judges this way. "
            "One of: mode, weighted_mode, unanimous.",
        ),
    ] = None,
    sample_aggregation: Annotated[
        str | None,
        typer.Option(
            "--sample-aggregation",
            metavar="METHOD",
            help="What-if: combine each judge's repeated samples this way. "
            "One of: majority, median, mean.",
        ),
    ] = None,
    cannot_assess: Annotated[
        str | None,
        typer.Option(
            "--cannot-assess",
            metavar="STRATEGY",
            help="What-if: score CANNOT_ASSESS verdicts this way. "
            "One of: skip, zero, partial, fail.",
        ),
    ] = None,
    ca_mode: Annotated[
        str,
        typer.Option(
            "--ca-mode",
            metavar="MODE",
            help="How CANNOT_ASSESS/NA count against ground truth. "
            "One of: exclude, as_unmet, as_category.",
        ),
    ] = "exclude",
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="--format html: write here (default DIR/report.html)."),
    ] = None,
    ground_truth: Annotated[
        str,
        typer.Option(
            "--ground-truth",
            metavar="SOURCE",
            help="Human labels as ground truth where the dataset has none. "
            "One of: majority, rater:NAME.",
        ),
    ] = "majority",
) -> None:
    """Render an experiment from items.jsonl (no judge calls)."""

    def body() -> int:
        from autorubric_cli.cli.finish import finish, what_if_rules

        overrides = {
            "aggregation": aggregation,
            "ordinal_aggregation": ordinal_aggregation,
            "nominal_aggregation": nominal_aggregation,
            "sample_aggregation": sample_aggregation,
            "cannot_assess": cannot_assess,
        }
        rules = what_if_rules(directory, overrides)
        return finish(
            directory,
            format.value,
            fail_under,
            junit,
            what_if=rules,
            ca_mode=ca_mode,
            output=output,
            ground_truth=ground_truth,
        )

    guarded(body)


class CompareFormat(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"
    junit = "junit"
    html = "html"


@app.command(cls=PlainHelpCommand)
def compare(
    base: Annotated[Path, typer.Argument(help="BASE experiment directory (e.g. main).")],
    new: Annotated[Path, typer.Argument(help="NEW experiment directory (the change).")],
    format: Annotated[
        CompareFormat, typer.Option("--format", "-f", help="Output format.")
    ] = CompareFormat.table,
    max_drop: MaxDrop = None,
    fail_on_regression: FailOnRegression = False,
    alpha: Alpha = 0.05,
    junit: Junit = None,
    ca_mode: Annotated[
        str,
        typer.Option(
            "--ca-mode",
            metavar="MODE",
            help="How CANNOT_ASSESS/NA count in the comparison. "
            "One of: exclude, as_unmet, as_category.",
        ),
    ] = "exclude",
    top: Annotated[int, typer.Option("--top", min=0, help="Items that moved most to list.")] = 10,
    seed: Annotated[
        int | None, typer.Option("--seed", min=0, help="Bootstrap seed (default: BASE's seed).")
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="--format html: write here (default NEW/compare.html)."
        ),
    ] = None,
) -> None:
    """Paired comparison of two experiments on the same items (no judge calls), with a gate."""

    def body() -> int:
        from autorubric_cli.cli.compare_cmd import run_compare
        from autorubric_cli.report.compare import CompareOptions

        options = CompareOptions(max_drop, fail_on_regression, alpha, ca_mode, top, seed)
        return run_compare(base, new, options, format.value, junit, output)

    guarded(body)


@app.command(cls=PlainHelpCommand)
def validate(
    directory: Annotated[
        Path, typer.Argument(help="Experiment directory (from `run`, or `simulate`'s experiment/).")
    ],
    human: Annotated[
        Path | None,
        typer.Option(
            "--human",
            help='JSONL {"id", "human_ratings"} per line; replaces the ratings in the records.',
        ),
    ] = None,
    criterion: Annotated[
        list[str] | None,
        typer.Option("--criterion", help="Validate only this criterion (repeatable)."),
    ] = None,
    positive: Annotated[
        str | None,
        typer.Option(
            "--positive",
            help="Positive option(s) for decisions, comma-separated (default: value > 0.5; MET).",
        ),
    ] = None,
    tau: Annotated[
        float,
        typer.Option("--tau", help="Cutoff for decisions and hard response sets, in (0, 1]."),
    ] = 0.5,
    beta: Annotated[
        float,
        typer.Option("--beta", help="P(k in response set | chose k') for the --beta-pair (k, k')."),
    ] = 0.0,
    beta_pair: Annotated[
        str | None,
        typer.Option(
            "--beta-pair",
            metavar="K,K'",
            help="The two options beta links (binary default: MET,UNMET).",
        ),
    ] = None,
    beta_sweep: Annotated[
        str | None,
        typer.Option(
            "--beta-sweep",
            metavar="BETAS",
            help="Comma-separated betas to sweep, e.g. 0,0.1,0.2,0.3,0.4; or off.",
        ),
    ] = None,
    fc_matrix: Annotated[
        Path | None,
        typer.Option(
            "--fc-matrix",
            help="JSON mapping criterion -> chosen option -> list of "
            '{"set": [option labels], "p": probability}.',
        ),
    ] = None,
    format: Annotated[
        str, typer.Option("--format", "-f", metavar="FORMAT", help="One of: table, json.")
    ] = "table",
) -> None:
    """Validate judges against disagreeing human raters, without gold labels; no judge calls.

    Compares every judge (its repeated samples give a per-item rating distribution) and the
    ensemble with the humans' ratings under forced-choice and response-set definitions of
    performance (Guerdan et al., ICML 2025), marks the judge each definition selects, warns
    about rank inversions, and shows downstream decision consistency and prevalence bias.
    """

    def body() -> int:
        from autorubric_cli.cli.validate_cmd import run_validate

        return run_validate(
            directory,
            fmt=format,
            human=human,
            criteria=criterion or [],
            tau=tau,
            positive=positive,
            beta=beta,
            beta_pair=beta_pair,
            beta_sweep=beta_sweep,
            fc_matrix=fc_matrix,
        )

    guarded(body)


@app.command(cls=PlainHelpCommand)
def simulate(
    out: Annotated[Path, typer.Argument(help="Output directory (new or empty).")],
    items: Annotated[int, typer.Option("--items", min=2, help="Items.")] = 200,
    options: Annotated[int, typer.Option("--options", min=2, max=6, help="Options q.")] = 3,
    raters: Annotated[int, typer.Option("--raters", min=1, help="Human raters per item.")] = 3,
    judges: Annotated[int, typer.Option("--judges", min=1, help="Simulated judges.")] = 4,
    samples: Annotated[int, typer.Option("--samples", min=1, help="Samples per judge.")] = 5,
    max_set_size: Annotated[
        int | None,
        typer.Option("--max-set-size", help="Largest response set (1: fully specified task)."),
    ] = None,
    error_rate: Annotated[float, typer.Option("--error-rate", help="Rater error ε.")] = 0.0,
    skew: Annotated[float, typer.Option("--skew", help="Error skew η (>0: towards A).")] = 0.0,
    human_gamma: Annotated[
        float, typer.Option("--human-gamma", help="Human selection effect γ (>0: favour A).")
    ] = 0.0,
    judge_gamma: Annotated[
        float, typer.Option("--judge-gamma", help="Judge selection effect γ.")
    ] = 0.0,
    judge_noise: Annotated[
        str,
        typer.Option(
            "--judge-noise",
            metavar="MIN,MAX",
            help="Range of the sd of the judges' perturbation, 0 <= MIN <= MAX.",
        ),
    ] = "0.02,0.3",
    concentration: Annotated[
        float, typer.Option("--concentration", help="Dirichlet concentration over sets.")
    ] = 1.0,
    human_elicitation: Annotated[
        str,
        typer.Option(
            "--human-elicitation",
            metavar="KIND",
            help="What the simulated humans report. One of: forced_choice, response_set.",
        ),
    ] = "forced_choice",
    judge_elicitation: Annotated[
        str,
        typer.Option(
            "--judge-elicitation",
            metavar="KIND",
            help="What the simulated judges report (both adds option_set). "
            "One of: forced_choice, both.",
        ),
    ] = "forced_choice",
    seed: Annotated[int, typer.Option("--seed", help="Random seed.")] = 0,
    format: Annotated[
        str, typer.Option("--format", "-f", metavar="FORMAT", help="One of: table, json.")
    ] = "table",
) -> None:
    """Write a synthetic study (Guerdan et al., section 6) that `validate` reads; no judge calls.

    Per item, response-set distributions are Dirichlet draws; human raters report sets with
    error ε (skew η) and pick a forced choice with selection effect γ; judges are perturbed
    copies of the human distribution with their own γ. Writes OUT/rubric.yaml,
    OUT/dataset.jsonl (human_ratings), OUT/experiment/ (a completed experiment with every
    judge's sampled votes: run `autorubric validate OUT/experiment`) and OUT/truth.json
    (each definition's population-level figures and the judge it truly selects).
    """

    def body() -> int:
        from autorubric_cli.cli.validate_cmd import run_simulate

        settings = {
            "n_items": items,
            "n_options": options,
            "raters": raters,
            "n_judges": judges,
            "samples": samples,
            "max_set_size": max_set_size,
            "error_rate": error_rate,
            "skew": skew,
            "human_gamma": human_gamma,
            "judge_gamma": judge_gamma,
            "judge_noise": judge_noise,
            "concentration": concentration,
            "seed": seed,
            "human_elicitation": human_elicitation,
            "judge_elicitation": judge_elicitation,
        }
        return run_simulate(out, fmt=format, options=settings)

    guarded(body)


app.add_typer(cache_app, name="cache")
app.add_typer(label_app, name="label")


def main() -> None:
    """The console script: the command, then a fast exit.

    After the command, the interpreter would tear down every module and collect every object
    still alive (litellm's tables, a large run's records): seconds with nothing on screen, as
    long after Ctrl-C as after a finished run. Output is flushed and atexit handlers run; the
    process then ends without that teardown.
    """
    try:
        app()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        fast_exit(code)


def fast_exit(code: int) -> None:
    import atexit
    import contextlib
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    atexit._run_exitfuncs()
    os._exit(code)
