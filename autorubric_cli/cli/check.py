"""`autorubric check`: validate a rubric and optionally a dataset, print a short summary."""

from __future__ import annotations

from pathlib import Path

from autorubric_cli.cli.console import output_console
from autorubric_cli.core.rubric import CriterionOption
from autorubric_cli.core.words import plural
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.options import RunOptions
from autorubric_cli.experiment.preflight import MissingKeyVariable, Scope, preflight
from autorubric_cli.judges.transports.choice import describe_transport
from autorubric_cli.loading.dataset import summarize_dataset
from autorubric_cli.report.fit import build_table, print_fitted


def run_check(
    rubric_path: Path, dataset_path: Path | None, options: RunOptions, env: bool = True
) -> None:
    """Refuse what `run` would refuse before its first call (the same pre-flight rules), then
    print a summary. `env=False` (--no-env) skips the rules that read the environment."""
    # no "judges" scope: a rubric without judges is meant for `run --judge MODEL` (said below)
    scopes: set[Scope] = {"rubric", "dataset", "env"} if env else {"rubric", "dataset"}
    try:
        plan = preflight(rubric_path, dataset_path, options, frozenset(scopes))
    except MissingKeyVariable as exc:
        message = f"{exc.message}, or pass --no-env to skip the environment checks"
        raise InputError(message, path=exc.path, line=exc.line, key=exc.key) from None
    rubric = plan.rubric
    summary = None if dataset_path is None else summarize_dataset(dataset_path, rubric, plan.fields)
    rows = []
    for c in rubric.criteria:
        shown = "MET / UNMET" if c.options is None else _options(c.options)
        labelled = "-" if summary is None else str(summary.labels.get(c.name, 0))
        rows.append([c.name, c.kind, f"{c.weight:g}", rubric.aggregation_for(c), shown, labelled])
    headers = ["criterion", "kind", "weight", "aggregation", "options", "labelled items"]
    title = f"{rubric_path}: {rubric.name or rubric_path.stem} — OK"
    table = build_table(title, headers, rows, free=("options",), right=("weight", "labelled items"))
    console = output_console()
    if rows:
        print_fitted(console, table)
    else:
        console.print(f"{title}: no shared criteria, each item brings its own", highlight=False)
    used = ", ".join(f"{j.judge_id} ({describe_transport(j)})" for j in rubric.grader.judges) or (
        "none: `run` needs --judge MODEL (pass it to `check` too, to check that run)"
    )
    console.print(
        f"judges: {used}" + ("" if env else " (environment not checked: --no-env)"),
        highlight=False,
        soft_wrap=True,  # one line
    )
    for warning in plan.warnings:
        console.print(f"warning: {warning}", markup=False, soft_wrap=True)  # one line
    if rubric.gate:
        console.print("gate: " + "; ".join(_bounds(g.metric, g.min, g.max) for g in rubric.gate))
    if summary is None and not rubric.criteria:
        console.print(
            "no shared criteria: every item of the dataset must carry its own (`rubric`)",
            highlight=False,
            soft_wrap=True,
        )
    if summary is not None:
        own = (
            f"{summary.with_rubric} with criteria of their own ({summary.item_criteria} in all), "
            if summary.with_rubric
            else ""
        )
        console.print(
            f"{dataset_path}: {plural(summary.items, 'item')}, {own}"
            f"{summary.with_ground_truth} with ground truth, "
            f"{summary.with_human_ratings} with human ratings — OK"
        )


def _options(options: list[CriterionOption]) -> str:
    na = sum(o.na for o in options)
    return f"{len(options) - na} scored" + (f" + {na} NA" if na else "")


def _bounds(metric: str, low: float | None, high: float | None) -> str:
    parts = [f">= {low:g}" if low is not None else "", f"<= {high:g}" if high is not None else ""]
    return f"{metric} " + " and ".join(p for p in parts if p)
