"""`autorubric review` and `autorubric improve`: rubrics worth trusting
(docs/guides/rubric-quality.md). Each parses its flags and calls its body."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from autorubric_cli.cli.guard import guarded
from autorubric_cli.cli.options import CacheDir, DryRun, JudgeOpt, MaxCost, NoCache


class ReviewFormat(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"
    html = "html"


OutDir = Annotated[
    Path | None,
    typer.Option(
        "--out", help="Output directory (its stages resume when run again with the same inputs)."
    ),
]


def review(
    rubric: Annotated[Path, typer.Argument(metavar="RUBRIC", help="Rubric YAML file to review.")],
    dataset: Annotated[
        Path | None,
        typer.Argument(metavar="DATA", help="Dataset: a seeded sample is graded with RUBRIC."),
    ] = None,
    task: Annotated[
        str | None, typer.Option("--task", help="The task the rubric's responses answer.")
    ] = None,
    task_file: Annotated[
        Path | None, typer.Option("--task-file", help="Read the task from this file.")
    ] = None,
    meta: Annotated[
        Path | None, typer.Option("--meta", help="A meta-rubric file instead of the shipped one.")
    ] = None,
    judge: JudgeOpt = None,
    min_quality: Annotated[
        float | None,
        typer.Option("--min-quality", help="Gate: fail (exit 1) if the quality is below Q."),
    ] = None,
    format: Annotated[
        ReviewFormat, typer.Option("--format", "-f", help="Output format.")
    ] = ReviewFormat.table,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="--format html: the file (default OUT/review.html)."),
    ] = None,
    sample: Annotated[
        int, typer.Option("--sample", min=1, help="Items of DATA to grade with the rubric.")
    ] = 20,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the sample.")] = 0,
    out: OutDir = None,
    dry_run: DryRun = False,
    max_cost: MaxCost = None,
    no_cache: NoCache = False,
    cache_dir: CacheDir = None,
) -> None:
    """Grade RUBRIC against a meta-rubric (is each criterion one observable property, specific,
    distinct, with clear levels and proportionate weights; with --task, does it cover the
    task), and with DATA flag criteria that do not discriminate or that judges disagree on."""
    from autorubric_cli.cli.review_body import run_review_command
    from autorubric_cli.rubric_review.review import ReviewRequest

    def body() -> int:
        request = ReviewRequest(
            rubric=rubric,
            data=dataset,
            meta=meta,
            judges=judge or [],
            sample=sample,
            seed=seed,
            out=out,
            min_quality=min_quality,
            max_cost=max_cost,
            cache=not no_cache,
            cache_dir=cache_dir,
        )
        return run_review_command(request, task, task_file, format.value, output, dry_run)

    guarded(body)


class ImproveFormat(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"


def improve(
    rubric: Annotated[Path, typer.Argument(metavar="RUBRIC", help="Rubric YAML file to improve.")],
    dataset: Annotated[
        Path, typer.Argument(metavar="DATA", help="Dataset whose items carry labels.")
    ],
    rounds: Annotated[int, typer.Option("--rounds", min=1, help="Rounds of rewording.")] = 3,
    test_share: Annotated[
        float, typer.Option("--test-share", help="Share of the labelled items held out.")
    ] = 0.3,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the split.")] = 0,
    reviser: Annotated[
        str | None,
        typer.Option(
            "--reviser",
            metavar="MODEL",
            help="Judge id of the rubric, or a model, that proposes new wording (default: the "
            "first judge).",
        ),
    ] = None,
    target: Annotated[
        float,
        typer.Option("--target", min=0, max=1, help="Reword criteria below this train accuracy."),
    ] = 0.9,
    labels: Annotated[
        Path | None,
        typer.Option(
            "--labels", metavar="DIR", help="Also the human labels imported into this experiment."
        ),
    ] = None,
    judge: JudgeOpt = None,
    out: OutDir = None,
    format: Annotated[
        ImproveFormat, typer.Option("--format", "-f", help="Output format.")
    ] = ImproveFormat.table,
    dry_run: DryRun = False,
    max_cost: MaxCost = None,
    no_cache: NoCache = False,
    cache_dir: CacheDir = None,
) -> None:
    """Reword RUBRIC's criteria against DATA's labels: rounds on a train part, then the
    original and the improved rubric compared on held-out items. Writes rubric.improved.yaml
    and a diff in the output directory; never changes RUBRIC, names, order or weights."""
    from autorubric_cli.cli.review_body import run_improve_command
    from autorubric_cli.rubric_review.improve import ImproveRequest

    def body() -> int:
        request = ImproveRequest(
            rubric=rubric,
            data=dataset,
            rounds=rounds,
            test_share=test_share,
            seed=seed,
            reviser=reviser,
            target=target,
            labels=labels,
            judges=judge or [],
            out=out,
            max_cost=max_cost,
            cache=not no_cache,
            cache_dir=cache_dir,
        )
        return run_improve_command(request, format.value, dry_run)

    guarded(body)
