"""`autorubric merge OUT DIR...`: merge shards, then report on the result like `run` does."""

from __future__ import annotations

import sys
from pathlib import Path

from autorubric_cli.cli.finish import finish
from autorubric_cli.cli.pairwise_body import report_pairwise
from autorubric_cli.core.words import plural
from autorubric_cli.experiment.manifest import is_pairwise
from autorubric_cli.experiment.merge import merge_shards


def run_merge(
    out: Path,
    sources: list[Path],
    *,
    allow_partial: bool,
    fmt: str,
    fail_under: float | None,
    junit: Path | None,
) -> int:
    """Exit code as for `run`: the gate and errored items of the merged experiment decide."""
    result = merge_shards(out, sources, allow_partial=allow_partial)
    for warning in result.warnings:
        print(f"autorubric: warning: {warning}", file=sys.stderr)
    print(
        f"autorubric: merged {plural(result.shards, 'shard')}, {plural(result.items, 'item')} "
        f"into {out} "
        f"({result.status})",
        file=sys.stderr,
    )
    if is_pairwise(out):
        return report_pairwise(out, fmt, None, {"--fail-under": fail_under, "--junit": junit})
    return finish(out, fmt, fail_under, junit)
