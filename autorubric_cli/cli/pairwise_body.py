"""What `autorubric pairwise` (and `report`/`resume` of a pairwise experiment) run: the check,
the bill, the comparison, then the report in the format asked and the exit code."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from autorubric_cli.cli.cache_body import render_bill
from autorubric_cli.cli.console import output_console
from autorubric_cli.cli.finish import append_step_summary
from autorubric_cli.cli.pipes import tolerate_closed_stdout
from autorubric_cli.core.json_model import to_json
from autorubric_cli.core.words import plural
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.lock import writer_active
from autorubric_cli.experiment.manifest import REPORT, write_atomic
from autorubric_cli.experiment.preflight import Scope
from autorubric_cli.judges.policy.preflight import print_warnings
from autorubric_cli.pairwise.bill import pairwise_dry_run
from autorubric_cli.pairwise.checks import pairwise_plan
from autorubric_cli.pairwise.opened import open_pairwise
from autorubric_cli.pairwise.page import write_pairwise_html
from autorubric_cli.pairwise.plan import PairPlan, PairwiseOptions
from autorubric_cli.pairwise.render import (
    render_pairwise_csv,
    render_pairwise_markdown,
    render_pairwise_tables,
)
from autorubric_cli.pairwise.report import build_pairwise_report, pairwise_exit_code
from autorubric_cli.pairwise.requests import questions_of
from autorubric_cli.pairwise.session import resume_pairwise, start_pairwise

CHECK_SCOPES: frozenset[Scope] = frozenset({"rubric", "judges", "env", "dataset"})


def run_pairwise(
    rubric: Path, options: PairwiseOptions, mode: str, fmt: str, output: Path | None
) -> int:
    if len(options.systems) < 2:
        raise InputError("give two or more systems to compare", key="A B [C ...]")
    if output is not None and fmt != "html":
        raise InputError("only with --format html", key="--output")
    if mode == "check":
        plan = pairwise_plan(rubric, options, CHECK_SCOPES)
        print_warnings(plan.base.warnings)
        print_check(plan)
        return 0
    if mode == "dry-run":
        return render_bill(pairwise_dry_run(rubric, options), "json" if fmt == "json" else "table")
    directory = start_pairwise(rubric, options)
    return finish_pairwise(directory, fmt, output, page=True)


def print_check(plan: PairPlan) -> None:
    """What the comparison would do; nothing is called or written."""
    units = sum(1 for _ in plan.units())
    orders = 2 if plan.setup.swap == "both" else 1
    asked = len(questions_of(plan.rubric)) * orders
    calls = units * asked * sum(j.samples for j in plan.config.judges)
    console = output_console()
    for system in plan.systems:
        console.print(f"{system.name}: {plural(len(system.items), 'item')} ({system.source.path})")
    console.print(
        f"OK: {plural(len(plan.pairs()), 'pair')}, {plural(units, 'comparison')}, "
        f"{plural(calls, 'judge call')} (swap {plan.setup.swap}); gate: "
        f"{plural(len(plan.gate()), 'check')}",
        highlight=False,
    )


def finish_pairwise(directory: Path, fmt: str, output: Path | None, page: bool = False) -> int:
    """Build the report from items.jsonl, write report.json (unless a writer holds the
    directory), render it in `fmt`, and return the exit code. `page` (the end of a comparison
    or its resume): also write report.html, as `run` does."""
    if fmt == "junit":
        raise InputError("a pairwise report has no JUnit form; use json for CI", key="--format")
    opened = open_pairwise(directory)
    report = build_pairwise_report(opened)
    in_use = writer_active(directory)
    if not in_use:
        write_atomic(directory / REPORT, to_json(report))
    append_step_summary(render_pairwise_markdown(report))
    with tolerate_closed_stdout():
        if fmt == "html":
            if in_use and output is None:
                raise InputError(
                    "a comparison is writing this experiment: give -o PATH for the page",
                    path=str(directory),
                    key="--format",
                )
            print(write_pairwise_html(report, opened, output))
        elif fmt == "json":
            sys.stdout.write(to_json(report).decode() + "\n")
        elif fmt == "markdown":
            sys.stdout.write(render_pairwise_markdown(report))
        elif fmt == "csv":
            sys.stdout.write(render_pairwise_csv(report))
        else:
            render_pairwise_tables(report, output_console())
        if page and fmt != "html":
            html = write_pairwise_html(report, opened)
            if fmt == "table":
                print(f"page: {html}")
        sys.stdout.flush()
    return pairwise_exit_code(report)


def resume_pairwise_body(
    directory: Path,
    *,
    retry_errors: bool,
    concurrency: int | None,
    cache: bool,
    cache_dir: Path | None,
    batch: bool,
    max_cost: float | None,
    fmt: str,
    flags: Mapping[str, object],
) -> int:
    """`autorubric resume DIR` of a pairwise experiment (`flags`: a run's resume flags that
    pairwise does not take, refused when given)."""
    given = next((flag for flag, value in flags.items() if value is not None), None)
    if given is not None:
        raise InputError("not used when resuming a pairwise experiment", key=given)
    if fmt == "junit":
        raise InputError("a pairwise report has no JUnit form; use json for CI", key="--format")
    warnings = resume_pairwise(
        directory,
        retry_errors=retry_errors,
        concurrency=concurrency,
        cache=cache,
        cache_dir=cache_dir,
        batch=batch,
        max_cost=max_cost,
    )
    for warning in warnings:
        print(f"autorubric: warning: {warning}", file=sys.stderr)
    return finish_pairwise(directory, fmt, None, page=True)


def report_pairwise(
    directory: Path, fmt: str, output: Path | None, flags: Mapping[str, object]
) -> int:
    """`autorubric report DIR` of a pairwise experiment; the flags of a run's report that have
    no meaning for comparisons are refused."""
    given = next((flag for flag, value in flags.items() if value is not None), None)
    if given is not None:
        raise InputError(
            "not used by a pairwise report (its gate is the rubric's `pairwise.gate` and "
            "`pairwise --min-win-rate`)",
            key=given,
        )
    return finish_pairwise(directory, fmt, output)
