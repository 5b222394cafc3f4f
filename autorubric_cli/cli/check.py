"""`autorubric check`: validate a rubric and optionally a dataset, print a short summary."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from autorubric_cli.core.rubric import CriterionOption
from autorubric_cli.grading.few_shot import load_examples
from autorubric_cli.judges.preflight import check_judges
from autorubric_cli.loading.dataset import summarize_dataset
from autorubric_cli.loading.fields import parse_field_flags
from autorubric_cli.loading.rubric_loader import load_rubric


def run_check(rubric_path: Path, dataset_path: Path | None, field_flags: list[str]) -> None:
    rubric = load_rubric(rubric_path)
    warnings = check_judges(rubric.grader.judges, rubric_path)
    fields = {**rubric.dataset.fields, **parse_field_flags(field_flags)}
    if rubric.grader.few_shot is not None:
        load_examples(rubric.grader.few_shot, rubric, rubric_path.parent)
    if rubric.grader.max_cost is not None:  # a spend cap needs every judge priced (SPEC §8)
        from autorubric_cli.judges.spend import check_priced

        check_priced(rubric.grader)
    summary = None if dataset_path is None else summarize_dataset(dataset_path, rubric, fields)
    console = Console()
    table = Table(title=f"{rubric_path}: {rubric.name or rubric_path.stem} — OK")
    for column in ("criterion", "kind", "weight", "aggregation", "options", "labelled items"):
        table.add_column(column)
    for c in rubric.criteria:
        options = "MET / UNMET" if c.options is None else _options(c.options)
        labelled = "-" if summary is None else str(summary.labels.get(c.name, 0))
        table.add_row(c.name, c.kind, f"{c.weight:g}", rubric.aggregation_for(c), options, labelled)
    console.print(table)
    judges = ", ".join(j.judge_id for j in rubric.grader.judges) or "none (pass --judge on run)"
    console.print(f"judges: {judges}")
    for warning in warnings:
        console.print(f"warning: {warning}", markup=False)
    if rubric.gate:
        console.print("gate: " + "; ".join(_bounds(g.metric, g.min, g.max) for g in rubric.gate))
    if summary is not None:
        console.print(
            f"{dataset_path}: {summary.items} items, "
            f"{summary.with_ground_truth} with ground truth, "
            f"{summary.with_human_ratings} with human ratings — OK"
        )


def _options(options: list[CriterionOption]) -> str:
    na = sum(o.na for o in options)
    return f"{len(options) - na} scored" + (f" + {na} NA" if na else "")


def _bounds(metric: str, low: float | None, high: float | None) -> str:
    parts = [f">= {low:g}" if low is not None else "", f"<= {high:g}" if high is not None else ""]
    return f"{metric} " + " and ".join(p for p in parts if p)
