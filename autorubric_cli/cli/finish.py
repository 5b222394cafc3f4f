"""The end of `run`, `resume` and `report`: build the report, write it, render, exit code."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pydantic import ValidationError
from rich.console import Console

from autorubric_cli.cli.baseline_flags import refuse_unreachable
from autorubric_cli.cli.console import output_console
from autorubric_cli.cli.pipes import tolerate_closed_stdout
from autorubric_cli.core.config import (
    BINARY_AGGREGATIONS,
    NOMINAL_AGGREGATIONS,
    ORDINAL_AGGREGATIONS,
    SAMPLE_AGGREGATIONS,
    CannotAssessConfig,
    GateCheck,
)
from autorubric_cli.core.gate import gate_exit_code
from autorubric_cli.core.json_model import to_json, to_json_dict
from autorubric_cli.core.what_if import WhatIfFlags
from autorubric_cli.errors import EXIT_INPUT, InputError
from autorubric_cli.experiment.lock import writer_active
from autorubric_cli.experiment.manifest import ITEMS, REPORT, load_manifest, write_atomic
from autorubric_cli.experiment.opened import OpenedExperiment, open_experiment
from autorubric_cli.experiment.store import ReadIssues, iter_latest_records
from autorubric_cli.metrics.ca_mode import CA_MODES
from autorubric_cli.report.build import build_report_and_fold
from autorubric_cli.report.html.page import write_report_html
from autorubric_cli.report.models import Report
from autorubric_cli.report.render_table import render_compact, render_tables
from autorubric_cli.report.render_text import render_csv, render_junit, render_markdown

KIND_OF_FLAG = {
    "aggregation": ("binary", BINARY_AGGREGATIONS),
    "ordinal_aggregation": ("ordinal", ORDINAL_AGGREGATIONS),
    "nominal_aggregation": ("nominal", NOMINAL_AGGREGATIONS),
}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def what_if_rules(directory: Path, overrides: dict[str, str | None]) -> WhatIfFlags | None:
    """The report's what-if flags, checked (each applies to every criterion of its kind)."""
    if all(v is None for v in overrides.values()):
        return None
    rules = open_experiment(directory).rules
    aggregation = {}
    for flag, (kind, allowed) in KIND_OF_FLAG.items():
        method = overrides.get(flag)
        if method is None:
            continue
        if method not in allowed:
            raise InputError(f"must be one of: {', '.join(allowed)}", key=_flag(flag))
        aggregation[kind] = method
    sample = overrides.get("sample_aggregation")
    if sample is not None and sample not in SAMPLE_AGGREGATIONS:
        raise InputError(
            f"must be one of: {', '.join(SAMPLE_AGGREGATIONS)}", key="--sample-aggregation"
        )
    strategy = overrides.get("cannot_assess")
    cannot_assess = None
    if strategy is not None:
        try:
            cannot_assess = CannotAssessConfig.model_validate(
                {"strategy": strategy, "partial_credit": rules.cannot_assess.partial_credit}
            )
        except ValidationError:
            raise InputError(
                "must be one of: skip, zero, partial, fail", key="--cannot-assess"
            ) from None
    return WhatIfFlags(aggregation, sample, cannot_assess)


def exit_code(built: Report) -> int:
    """1 when the gate failed on a value; else 3 when items errored; else 0
    (docs/reference/exit-codes.md). The gate reads the report's JSON form (`core.gate`)."""
    return gate_exit_code(to_json_dict(built))


def append_step_summary(markdown: str) -> None:
    """Append to the GitHub Actions job summary when `GITHUB_STEP_SUMMARY` names a file."""
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_file:
        with open(summary_file, "a", encoding="utf-8") as handle:
            handle.write(markdown + "\n")


def finish(
    directory: Path,
    fmt: str,
    fail_under: float | None,
    junit: Path | None,
    *,
    quiet: bool = False,
    what_if: WhatIfFlags | None = None,
    ca_mode: str = "exclude",
    compact: bool = False,
    output: Path | None = None,
    ground_truth: str = "majority",
    cluster: str | None = None,
) -> int:
    """`compact` (run, resume): also write report.html and print the short summary."""
    in_use = refuse_report_flags(directory, fmt, what_if is not None, ca_mode, output)
    opened = open_experiment(directory)
    refuse_unreachable(opened, fail_under)
    extra = [GateCheck(metric="score.mean", min=fail_under)] if fail_under is not None else []
    built, fold = build_report_and_fold(
        opened,
        extra_checks=extra,
        what_if=what_if,
        ca_mode=ca_mode,
        ground_truth=ground_truth,
        cluster=cluster,
    )
    if what_if is None and output is None and not in_use:  # a what-if or -o: nothing in DIR
        write_atomic(directory / REPORT, to_json(built))
    if junit is not None:
        junit.write_text(render_junit(built))
    append_step_summary(render_markdown(built))
    html = None
    if fmt == "html" or compact:
        html = write_report_html(built, opened, fold, output)
    code = exit_code(built)
    with tolerate_closed_stdout():
        if quiet:
            pass
        elif fmt == "html":
            print(html)
        elif compact and fmt == "table":
            render_compact(built, wide_console(), str(directory), str(html))
        else:
            render(built, fmt, opened)
        sys.stdout.flush()
    return code


def refuse_report_flags(
    directory: Path, fmt: str, what_if: bool, ca_mode: str, output: Path | None
) -> bool:
    """Refuse flags that cannot go together; whether a run or resume is writing `directory`
    (it then owns the directory: a report writes nothing into it)."""
    if ca_mode not in CA_MODES:
        raise InputError(f"must be one of: {', '.join(CA_MODES)}", key="--ca-mode")
    if fmt == "html" and what_if and output is None:
        raise InputError(
            "a what-if report writes nothing to the experiment directory: give -o PATH",
            key="--format",
        )
    in_use = writer_active(directory)
    if in_use and fmt == "html" and output is None:
        raise InputError(
            "a run or resume is writing this experiment: give -o PATH to write the page elsewhere",
            path=str(directory),
            key="--format",
        )
    return in_use


def run_report(
    directory: Path,
    fmt: str,
    fail_under: float | None,
    junit: Path | None,
    overrides: dict[str, str | None],
    *,
    ca_mode: str,
    output: Path | None,
    ground_truth: str,
    cluster: str | None = None,
) -> int:
    """`autorubric report`: the report with the what-if flags in `overrides` applied. A run that
    stopped (`failed`) before grading any item has nothing to report: exit 2, as the run did,
    whatever the gate says (docs/reference/exit-codes.md)."""
    code = finish(
        directory,
        fmt,
        fail_under,
        junit,
        what_if=what_if_rules(directory, overrides),
        ca_mode=ca_mode,
        output=output,
        ground_truth=ground_truth,
        cluster=cluster,
    )
    manifest = load_manifest(directory)
    if manifest.status != "failed" or any(r.get("graded") for r in manifest.runs):
        return code
    print(
        f"autorubric: error: {directory}: the run stopped before it graded any item "
        f"({manifest.error}); continue it: autorubric resume {directory}",
        file=sys.stderr,
    )
    return EXIT_INPUT


def render(built: Report, fmt: str, opened: OpenedExperiment) -> None:
    if fmt == "json":
        sys.stdout.write(to_json(built).decode() + "\n")
    elif fmt == "markdown":
        sys.stdout.write(render_markdown(built))
    elif fmt == "junit":
        sys.stdout.write(render_junit(built))
    elif fmt == "csv":
        records = iter_latest_records(
            opened.directory / ITEMS, ReadIssues(), opened.rubric.criteria
        )
        sys.stdout.write(render_csv(records, opened.rubric, built.tags))
    else:
        render_tables(built, wide_console(), str(opened.directory))


def wide_console() -> Console:
    return output_console()
