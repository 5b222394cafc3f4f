"""The bodies of `review`, `improve` and `check --review`: run, render, exit code."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from autorubric_cli.cli.cache_body import print_json, render_bill
from autorubric_cli.cli.console import output_console
from autorubric_cli.errors import EXIT_ERRORED, EXIT_GATE, EXIT_OK, InputError
from autorubric_cli.loading.rubric_loader import load_rubric
from autorubric_cli.report.fit import build_table, print_fitted
from autorubric_cli.rubric_review.improve import ImproveRequest, improve_bill
from autorubric_cli.rubric_review.improve_loop import run_improve
from autorubric_cli.rubric_review.improve_render import (
    render_improve_markdown,
    render_improve_table,
)
from autorubric_cli.rubric_review.lint import lint
from autorubric_cli.rubric_review.models import ReviewResult
from autorubric_cli.rubric_review.render import (
    render_review_html,
    render_review_markdown,
    render_review_table,
)
from autorubric_cli.rubric_review.review import ReviewRequest, review_bill, run_review

REVIEW_HTML = "review.html"


def task_text(task: str | None, task_file: Path | None) -> str | None:
    if task is not None and task_file is not None:
        raise InputError("use either --task or --task-file, not both", key="--task")
    if task_file is None:
        return task
    try:
        return task_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the task: {exc}", path=str(task_file)) from None


def render_stage_bills(bill: dict[str, Any], fmt: str) -> None:
    if fmt == "json":
        print_json(bill)
        return
    for name, stage in bill["stages"].items():
        print(f"stage {name}:")
        render_bill(stage, "table")
    calls = bill["calls"]
    cost = bill["cost_estimate"]
    print(
        f"all stages: calls {calls['total']:,} ({calls['cached']:,} from the cache, "
        f"{calls['to_send']:,} to send) · cost ~{'n/a' if cost is None else f'${cost:,.4f}'}"
    )
    more = bill.get("at_most_more")
    if more:
        print(
            f"at most, later: {more['train_gradings']} more gradings of the train part (the "
            f"criteria reworded only), {more['test_gradings']} of the test part, and "
            f"{more['reviser_calls']} reviser calls (not priced)"
        )


def show_review(result: ReviewResult, fmt: str, output: Path | None) -> None:
    if fmt == "json":
        sys.stdout.write(result.to_json() + "\n")
    elif fmt == "markdown":
        sys.stdout.write(render_review_markdown(result))
    elif fmt == "html":
        path = output or Path(result.directory) / REVIEW_HTML
        path.write_text(render_review_html(result), encoding="utf-8")
        print(path)
    else:
        render_review_table(result, output_console())


def review_exit_code(result: ReviewResult) -> int:
    """3 when a judge's vote failed (as `run` with errored items; the same command asks those
    again), else 1 when the quality gate failed, else 0."""
    if result.errored_items:
        return EXIT_ERRORED
    return EXIT_GATE if result.passed is False else EXIT_OK


def run_review_command(
    request: ReviewRequest,
    task: str | None,
    task_file: Path | None,
    fmt: str,
    output: Path | None,
    dry_run: bool,
) -> int:
    request.task = task_text(task, task_file)
    if output is not None and fmt != "html":
        raise InputError("only used with --format html", key="--output")
    if dry_run:
        render_stage_bills(review_bill(request), fmt)
        return EXIT_OK
    result = run_review(request)
    show_review(result, fmt, output)
    return review_exit_code(result)


def print_lint(rubric_path: Path) -> int:
    """`check --review`'s findings after the check's summary: exit 1 when any, as a linter."""
    findings = lint(load_rubric(rubric_path))
    console = output_console()
    if not findings:
        console.print("review: no duplicate, overlong or missing-penalty finding", highlight=False)
        return EXIT_OK
    rows = [[f.kind, ", ".join(f.criteria) or "-", f.detail] for f in findings]
    table = build_table(
        "Review (no judge)", ["finding", "criteria", "detail"], rows, free=("detail",)
    )
    print_fitted(console, table)
    return EXIT_GATE


def run_improve_command(request: ImproveRequest, fmt: str, dry_run: bool) -> int:
    """`improve`: 3 when a held-out vote failed (the same command asks it again), else 0 (its
    figures are reported, not gated)."""
    if dry_run:
        render_stage_bills(improve_bill(request), fmt)
        return EXIT_OK
    result = run_improve(request)
    if fmt == "json":
        sys.stdout.write(result.to_json() + "\n")
    elif fmt == "markdown":
        sys.stdout.write(render_improve_markdown(result))
    else:
        render_improve_table(result, output_console())
    return EXIT_ERRORED if result.errored_items else EXIT_OK
