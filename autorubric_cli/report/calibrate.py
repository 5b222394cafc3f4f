"""`autorubric cascade calibrate FIRST_DIR THEN_DIR`: read two finished runs, replay the cascade
at every threshold (grading/calibrate.py) and recommend one (docs/guides/cascades.md)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from autorubric_cli.core.evaluate import ScoringRules
from autorubric_cli.core.json_model import Block
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.manifest import ITEMS
from autorubric_cli.experiment.opened import OpenedExperiment, open_experiment
from autorubric_cli.experiment.store import ReadIssues, iter_latest_records
from autorubric_cli.grading.calibrate import (
    Pair,
    ThresholdEntry,
    recommend,
    record_pairs,
    threshold_entry,
    thresholds,
    total_cost,
)
from autorubric_cli.report.formats import dollars, share
from autorubric_cli.report.render_cascade import rich_table


class CalibrationRun(Block):
    experiment: str
    path: str
    judges: list[str]


class CalibrationItems(Block):
    paired: int
    only_first: int
    only_then: int


class Calibration(Block):
    first: CalibrationRun
    then: CalibrationRun
    items: CalibrationItems
    target_agreement: float
    all_then_cost: float | None
    warnings: list[str]
    thresholds: list[ThresholdEntry]
    recommended: ThresholdEntry | None


def run_info(experiment: OpenedExperiment) -> CalibrationRun:
    return CalibrationRun(
        experiment=experiment.manifest.name,
        path=str(experiment.directory),
        judges=[j.judge_id for j in experiment.rubric.grader.judges],
    )


def latest(experiment: OpenedExperiment) -> dict[str, ItemRecord]:
    path = experiment.directory / ITEMS
    return {r.id: r for r in iter_latest_records(path, ReadIssues(), experiment.rubric.criteria)}


def same_criteria(first: OpenedExperiment, then: OpenedExperiment) -> None:
    names = [c.name for c in first.rubric.criteria]
    if [c.name for c in then.rubric.criteria] != names:
        raise InputError(
            "the two runs grade different criteria; calibrate runs of the same rubric",
            path=str(then.directory),
        )


def run_warnings(first: OpenedExperiment, then: OpenedExperiment) -> list[str]:
    """What makes a live cascade differ from the replay, or the replay incomplete."""
    found = []
    a, b = first.manifest, then.manifest
    if a.dataset.sha256 != b.dataset.sha256:
        found.append("the two runs graded different dataset files (items are paired by id)")
    if a.seed != b.seed:
        found.append(f"the runs' seeds differ ({a.seed}, {b.seed}): option orders differ")
    for run in (first, then):
        if run.manifest.status != "completed":
            found.append(f"{run.manifest.name} is {run.manifest.status}, not completed")
    return found


def run_pairs(
    firsts: dict[str, ItemRecord], thens: dict[str, ItemRecord], rules: ScoringRules
) -> list[Pair]:
    """Every (item, criterion) graded by both runs, items paired by id."""
    return [
        pair
        for item, record in firsts.items()
        if item in thens
        for pair in record_pairs(record, thens[item], rules)
    ]


def latest_pairs(first_dir: Path, then_dir: Path) -> list[Pair]:
    first, then = open_experiment(first_dir), open_experiment(then_dir)
    return run_pairs(latest(first), latest(then), first.rules)


def calibrate_experiments(first_dir: Path, then_dir: Path, target: float) -> Calibration:
    """Replay the cascade of FIRST_DIR's judges then THEN_DIR's, over the items both graded."""
    if not 0.0 <= target <= 1.0:
        raise InputError("must be between 0 and 1", key="--target-agreement")
    first, then = open_experiment(first_dir), open_experiment(then_dir)
    same_criteria(first, then)
    firsts, thens = latest(first), latest(then)
    pairs = run_pairs(firsts, thens, first.rules)
    entries = [threshold_entry(pairs, first.rules, t) for t in thresholds(pairs)]
    paired = len({p.item for p in pairs})
    return Calibration(
        first=run_info(first),
        then=run_info(then),
        items=CalibrationItems(
            paired=paired, only_first=len(firsts) - paired, only_then=len(thens) - paired
        ),
        target_agreement=target,
        all_then_cost=total_cost(p.then_cost for p in pairs),
        warnings=run_warnings(first, then),
        thresholds=entries,
        recommended=recommend(entries, target),
    )


HEADER = ["threshold", "escalated", "agreement with then", "agreement with labels", "cost", "ratio"]


def calibration_rows(calibration: Calibration) -> list[list[str]]:
    chosen = calibration.recommended
    return [
        [
            f"{e.threshold:.4g}{' *' if chosen is not None and e == chosen else ''}",
            share(e.escalation_rate),
            share(e.agreement_with_then),
            share(e.agreement_with_labels),
            dollars(e.cost),
            share(e.cost_ratio),
        ]
        for e in calibration.thresholds
    ]


def recommendation_line(calibration: Calibration) -> str:
    chosen, target = calibration.recommended, calibration.target_agreement
    if chosen is None:
        return f"No threshold reaches {target:.1%} agreement with the `then` judges."
    return (
        f"Recommended: escalate_below: {chosen.threshold:.4g} (agreement with then "
        f"{share(chosen.agreement_with_then)}, escalating {share(chosen.escalation_rate)}, "
        f"cost {dollars(chosen.cost)} = {share(chosen.cost_ratio)} of all-then)."
    )


def render_calibration_table(calibration: Calibration, console: Console) -> None:
    items = calibration.items
    title = (
        f"Cascade calibration: {calibration.first.experiment} then {calibration.then.experiment}"
        f" ({items.paired} items paired)"
    )
    console.print(rich_table(title, HEADER, calibration_rows(calibration)))
    console.print(recommendation_line(calibration))
    for warning in calibration.warnings:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False)
