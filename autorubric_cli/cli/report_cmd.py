"""`autorubric report` and `merge`: render an experiment, or merge shards and render the result
(docs/guides/ci.md, docs/guides/batches.md); no judge calls."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from autorubric_cli.cli.guard import guarded
from autorubric_cli.cli.options import ClusterOpt, FailUnder, Format, FormatOpt, Junit


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

    from autorubric_cli.cli.merge_body import run_merge

    def body() -> int:
        return run_merge(
            out,
            sources,
            allow_partial=allow_partial,
            fmt=format.value,
            fail_under=fail_under,
            junit=junit,
        )

    guarded(body)


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
    cluster: ClusterOpt = None,
) -> None:
    """Render an experiment from items.jsonl (no judge calls)."""

    from autorubric_cli.cli.finish import run_report
    from autorubric_cli.experiment.manifest import is_pairwise

    def body() -> int:
        if is_pairwise(directory):
            from autorubric_cli.cli.pairwise_body import report_pairwise

            flags = {"--fail-under": fail_under, "--junit": junit, "--cluster": cluster}
            flags |= {"--aggregation": aggregation, "--sample-aggregation": sample_aggregation}
            flags |= {
                "--cannot-assess": cannot_assess,
                "--ordinal-aggregation": ordinal_aggregation,
            }
            flags |= {"--nominal-aggregation": nominal_aggregation}
            return report_pairwise(directory, format.value, output, flags)
        overrides = {
            "aggregation": aggregation,
            "ordinal_aggregation": ordinal_aggregation,
            "nominal_aggregation": nominal_aggregation,
            "sample_aggregation": sample_aggregation,
            "cannot_assess": cannot_assess,
        }
        return run_report(
            directory,
            format.value,
            fail_under,
            junit,
            overrides,
            ca_mode=ca_mode,
            output=output,
            ground_truth=ground_truth,
            cluster=cluster,
        )

    guarded(body)
