"""`autorubric split`: a seeded, stratified train/test split of a dataset
(docs/guides/rubric-quality.md)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from autorubric_cli.cli.guard import guarded
from autorubric_cli.cli.options import FieldOpt


class Stratify(StrEnum):
    ground_truth = "ground_truth"
    none = "none"


class SplitFormat(StrEnum):
    table = "table"
    json = "json"


def split(
    dataset: Annotated[Path, typer.Argument(metavar="DATA", help="Dataset file (any format).")],
    test_share: Annotated[
        float, typer.Option("--test-share", help="Share of the items in the test part.")
    ] = 0.3,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the draw.")] = 0,
    stratify: Annotated[
        Stratify,
        typer.Option("--stratify", help="ground_truth: keep each label pattern's share; none."),
    ] = Stratify.ground_truth,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out-dir", help="Write the parts here (default: beside DATA)."),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace parts that already exist.")
    ] = False,
    field: FieldOpt = None,
    format: Annotated[
        SplitFormat, typer.Option("--format", "-f", help="Output format.")
    ] = SplitFormat.table,
) -> None:
    """Write DATA's items into `<stem>.train.<ext>` and `<stem>.test.<ext>`, in DATA's format:
    seeded, stratified by each item's ground-truth pattern; never over an existing file
    without --force."""

    def body() -> int:
        from autorubric_cli.core.words import plural
        from autorubric_cli.loading.fields import parse_field_flags
        from autorubric_cli.rubric_review.split import split_dataset

        result = split_dataset(
            dataset,
            test_share,
            seed=seed,
            stratify=stratify.value,
            fields=parse_field_flags(field or []),
            directory=out_dir,
            force=force,
        )
        if format == SplitFormat.json:
            print(result.to_json())
        else:
            how = f"{result.strata:,} ground-truth patterns" if stratify.value != "none" else "none"
            print(f"train: {result.train.path} ({plural(result.train.items, 'item')})")
            print(f"test:  {result.test.path} ({plural(result.test.items, 'item')})")
            print(f"test share {test_share:g}, seed {seed}, stratified: {how}")
        return 0

    guarded(body)
