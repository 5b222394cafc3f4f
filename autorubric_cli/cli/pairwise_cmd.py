"""`autorubric pairwise`: judge systems side by side (docs/guides/pairwise.md). The command parses
its flags and calls the `pairwise` package through cli/pairwise_body.py."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from autorubric_cli.cli.guard import guarded
from autorubric_cli.cli.options import (
    BatchOpt,
    CacheDir,
    DryRun,
    FieldOpt,
    JudgeOpt,
    MaxCost,
    NoCache,
    ShardOpt,
)


class Swap(StrEnum):
    both = "both"
    random = "random"


class PairwiseFormat(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"
    csv = "csv"
    html = "html"


def pairwise(
    rubric: Annotated[Path, typer.Argument(metavar="RUBRIC", help="Rubric YAML file.")],
    systems: Annotated[
        list[Path],
        typer.Argument(
            metavar="A B [C ...]",
            help="The systems: dataset files or finished experiment directories, matched by "
            "item id.",
        ),
    ],
    out: Annotated[
        Path | None, typer.Option("--out", help="Experiment directory (any path).")
    ] = None,
    swap: Annotated[
        Swap,
        typer.Option(
            "--swap",
            help="both: ask every comparison in both orders (a judge that changes its "
            "preference with the order gives a tie); random: one order, seeded (half the calls).",
        ),
    ] = Swap.both,
    name: Annotated[
        list[str] | None,
        typer.Option(
            "--name",
            metavar="SYSTEM=LABEL",
            help="Name a system (default: its file stem or experiment name); repeatable.",
        ),
    ] = None,
    format: Annotated[
        PairwiseFormat, typer.Option("--format", "-f", help="Output format.")
    ] = PairwiseFormat.table,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="With --format html: write the page here."),
    ] = None,
    judge: JudgeOpt = None,
    seed: Annotated[
        int | None, typer.Option("--seed", min=0, help="Seed for --swap random and resamples.")
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option("--concurrency", min=1, help="Global cap on in-flight calls.")
    ] = None,
    field: FieldOpt = None,
    no_cache: NoCache = False,
    cache_dir: CacheDir = None,
    dry_run: DryRun = False,
    check: Annotated[
        bool,
        typer.Option(
            "--check", help="Refuse what the comparison would refuse, then stop; calls nothing."
        ),
    ] = False,
    max_cost: MaxCost = None,
    shard: ShardOpt = None,
    batch: BatchOpt = False,
    min_win_rate: Annotated[
        float | None,
        typer.Option(
            "--min-win-rate",
            metavar="X",
            help="Gate: fail (exit 1) unless the first system's win rate against every other "
            "is at least X.",
        ),
    ] = None,
    replace: Annotated[
        bool,
        typer.Option("--replace", help="Start over: empty an existing experiment directory."),
    ] = False,
) -> None:
    """Judge two or more systems' answers side by side, per criterion and both orders."""
    from autorubric_cli.cli.pairwise_body import run_pairwise
    from autorubric_cli.pairwise.plan import PairwiseOptions

    def body() -> int:
        options = PairwiseOptions(
            systems=systems,
            labels=name or [],
            out=out,
            swap=swap.value,
            judges=judge or [],
            seed=seed,
            concurrency=concurrency,
            fields=field or [],
            cache=not no_cache,
            cache_dir=cache_dir,
            shard=shard,
            batch=batch,
            max_cost=max_cost,
            replace=replace,
            min_win_rate=min_win_rate,
        )
        mode = "check" if check else "dry-run" if dry_run else "run"
        return run_pairwise(rubric, options, mode, format.value, output)

    guarded(body)
