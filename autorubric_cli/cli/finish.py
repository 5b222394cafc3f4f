"""The end of `run`, `resume` and `report`: build the report, write it, render, exit code."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console

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
from autorubric_cli.core.evaluate import ScoringRules
from autorubric_cli.core.gate import gate_exit_code
from autorubric_cli.core.json_model import to_json, to_json_dict
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.manifest import ITEMS, REPORT, write_atomic
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.experiment.store import ReadIssues, iter_latest_records
from autorubric_cli.report.build import build_report_and_fold
from autorubric_cli.report.models import Report
from autorubric_cli.report.render_table import render_compact, render_tables
from autorubric_cli.report.render_text import render_csv, render_junit, render_markdown

KIND_OF_FLAG = {
    "aggregation": ("binary", BINARY_AGGREGATIONS),
    "ordinal_aggregation": ("ordinal", ORDINAL_AGGREGATIONS),
    "nominal_aggregation": ("nominal", NOMINAL_AGGREGATIONS),
}
CA_MODES = ("exclude", "as_unmet", "as_category")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def what_if_rules(directory: Path, overrides: dict[str, str | None]) -> ScoringRules | None:
    """The recorded rules with the report's what-if flags applied (to every criterion of a kind)."""
    if all(v is None for v in overrides.values()):
        return None
    experiment = open_experiment(directory)
    rules = experiment.rules
    aggregation = dict(rules.aggregation)
    for flag, (kind, allowed) in KIND_OF_FLAG.items():
        method = overrides.get(flag)
        if method is None:
            continue
        if method not in allowed:
            raise InputError(f"must be one of: {', '.join(allowed)}", key=_flag(flag))
        for criterion in rules.criteria:
            if criterion.kind == kind:
                aggregation[criterion.name] = method
    changes: dict[str, Any] = {"aggregation": aggregation}
    sample = overrides.get("sample_aggregation")
    if sample is not None:
        if sample not in SAMPLE_AGGREGATIONS:
            raise InputError(
                f"must be one of: {', '.join(SAMPLE_AGGREGATIONS)}",
                key="--sample-aggregation",
            )
        changes["sample_aggregation"] = sample
    strategy = overrides.get("cannot_assess")
    if strategy is not None:
        try:
            changes["cannot_assess"] = CannotAssessConfig.model_validate(
                {"strategy": strategy, "partial_credit": rules.cannot_assess.partial_credit}
            )
        except ValidationError:
            raise InputError(
                "must be one of: skip, zero, partial, fail", key="--cannot-assess"
            ) from None
    return rules.with_overrides(**changes)


def exit_code(report: Report) -> int:
    """1 when the gate failed on a value; else 3 when items errored; else 0 (SPEC §8).
    The gate reads the report's JSON form (`core.gate`)."""
    return gate_exit_code(to_json_dict(report))


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
    what_if: ScoringRules | None = None,
    ca_mode: str = "exclude",
    compact: bool = False,
    output: Path | None = None,
    ground_truth: str = "majority",
) -> int:
    """`compact` (run, resume): also write report.html and print the short summary."""
    if ca_mode not in CA_MODES:
        raise InputError(f"must be one of: {', '.join(CA_MODES)}", key="--ca-mode")
    if fmt == "html" and what_if is not None and output is None:
        raise InputError(
            "a what-if report writes nothing to the experiment directory: give -o PATH",
            key="--format",
        )
    experiment = open_experiment(directory)
    extra = [GateCheck(metric="score.mean", min=fail_under)] if fail_under is not None else []
    report, fold = build_report_and_fold(
        experiment, extra_checks=extra, what_if=what_if, ca_mode=ca_mode, ground_truth=ground_truth
    )
    if what_if is None and output is None:  # a what-if or `-o` elsewhere changes nothing in DIR
        write_atomic(directory / REPORT, to_json(report))
    if junit is not None:
        junit.write_text(render_junit(report))
    append_step_summary(render_markdown(report))
    html = None
    if fmt == "html" or compact:
        from autorubric_cli.report.html.page import write_report_html

        html = write_report_html(report, experiment, fold, output)
    code = exit_code(report)
    with tolerate_closed_stdout():
        if quiet:
            pass
        elif fmt == "html":
            print(html)
        elif compact and fmt == "table":
            render_compact(report, wide_console(), str(directory), str(html))
        else:
            render(report, fmt, experiment)
        sys.stdout.flush()
    return code


def render(report: Report, fmt: str, experiment: Any) -> None:
    if fmt == "json":
        sys.stdout.write(to_json(report).decode() + "\n")
    elif fmt == "markdown":
        sys.stdout.write(render_markdown(report))
    elif fmt == "junit":
        sys.stdout.write(render_junit(report))
    elif fmt == "csv":
        records = iter_latest_records(
            experiment.directory / ITEMS, ReadIssues(), experiment.rubric.criteria
        )
        criteria = [c.name for c in experiment.rubric.criteria]
        judges = [j.judge_id for j in experiment.rubric.grader.judges]
        sys.stdout.write(render_csv(records, criteria, judges))
    else:
        render_tables(report, wide_console(), str(experiment.directory))


def wide_console() -> Console:
    return output_console()
