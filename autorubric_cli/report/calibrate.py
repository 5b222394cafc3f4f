"""`autorubric cascade calibrate FIRST_DIR THEN_DIR`: read two finished runs, replay the cascade
at every threshold (grading/calibrate.py) and recommend one (docs/guides/cascades.md)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from rich.console import Console

from autorubric_cli.core.evaluate import ScoringRules
from autorubric_cli.core.json_model import Block
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.core.words import plural
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
from autorubric_cli.grading.threshold_fit import (
    Against,
    CriterionFit,
    criterion_fits,
    fit_per_criterion,
)
from autorubric_cli.labels.overlay import LabelOverlay, experiment_overlay
from autorubric_cli.report.formats import dollars, rate
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
    against: Against  # what the target is agreement with: the `then` outcomes or the labels
    fit: Literal["one", "per_criterion"]  # one threshold for all, or one per criterion
    all_then_cost: float | None
    warnings: list[str]
    thresholds: list[ThresholdEntry]
    recommended: ThresholdEntry | None
    # --per-criterion: each criterion under the recommended set (null without the flag)
    per_criterion: list[CriterionFit] | None = None


def run_info(experiment: OpenedExperiment) -> CalibrationRun:
    return CalibrationRun(
        experiment=experiment.manifest.name,
        path=str(experiment.directory),
        judges=[j.judge_id for j in experiment.rubric.grader.judges],
    )


def latest(
    experiment: OpenedExperiment, overlays: Sequence[LabelOverlay | None] = ()
) -> dict[str, ItemRecord]:
    """The newest record of each item, its ground truth filled from `overlays` in turn (the
    dataset's own labels first)."""
    path = experiment.directory / ITEMS
    records = {}
    for record in iter_latest_records(path, ReadIssues(), experiment.rubric.criteria):
        for overlay in overlays:
            record = record if overlay is None else overlay.apply(record)
        records[record.id] = record
    return records


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


def calibrate_experiments(
    first_dir: Path,
    then_dir: Path,
    target: float,
    *,
    per_criterion: bool = False,
    against: Against = "then",
) -> Calibration:
    """Replay the cascade of FIRST_DIR's judges then THEN_DIR's, over the items both graded.
    Ground truth: the dataset's, else the human labels of either run (docs/guides/labels.md)."""
    if not 0.0 <= target <= 1.0:
        raise InputError("must be between 0 and 1", key="--target-agreement")
    first, then = open_experiment(first_dir), open_experiment(then_dir)
    same_criteria(first, then)
    overlays = [experiment_overlay(first.directory), experiment_overlay(then.directory)]
    firsts, thens = latest(first, overlays), latest(then)
    pairs = run_pairs(firsts, thens, first.rules)
    if against == "labels" and not any(p.truth is not None for p in pairs):
        raise InputError(
            "no graded criterion has ground truth or a human label to calibrate against",
            key="--against",
        )
    entries = [threshold_entry(pairs, first.rules, t) for t in thresholds(pairs)]
    chosen = recommend(entries, target, against)
    fits = None
    if per_criterion:
        names = [c.name for c in first.rules.criteria]
        single = None if chosen is None else chosen.threshold
        fitted = fit_per_criterion(pairs, names, target, against, single)
        chosen = None if fitted is None else threshold_entry(pairs, first.rules, fitted)
        fits = None if fitted is None else criterion_fits(pairs, fitted)
    paired = len({p.item for p in pairs})
    return Calibration(
        first=run_info(first),
        then=run_info(then),
        items=CalibrationItems(
            paired=paired, only_first=len(firsts) - paired, only_then=len(thens) - paired
        ),
        target_agreement=target,
        against=against,
        fit="per_criterion" if per_criterion else "one",
        all_then_cost=total_cost(p.then_cost for p in pairs),
        warnings=run_warnings(first, then),
        thresholds=entries,
        recommended=chosen,
        per_criterion=fits,
    )


HEADER = ["threshold", "escalated", "agreement with then", "agreement with labels", "cost", "ratio"]


def shown_figures(entry: ThresholdEntry) -> list[str]:
    return [
        rate(entry.escalation_rate),
        rate(entry.agreement_with_then),
        rate(entry.agreement_with_labels),
        dollars(entry.cost),
        rate(entry.cost_ratio),
    ]


def calibration_rows(calibration: Calibration) -> list[list[str]]:
    """One row per run of consecutive thresholds that give the same cascade (`0–0.6667`): the
    JSON keeps every threshold, a table of identical rows would hide the ones that differ.
    `*` marks the row of the recommended threshold (the lowest of its row)."""
    rows: list[tuple[list[ThresholdEntry], list[str]]] = []
    for entry in calibration.thresholds:
        figures = shown_figures(entry)
        if rows and rows[-1][1] == figures:
            rows[-1][0].append(entry)
        else:
            rows.append(([entry], figures))
    chosen = calibration.recommended
    return [
        [threshold_cell(group, chosen is not None and chosen in group), *figures]
        for group, figures in rows
    ]


def threshold_text(entry: ThresholdEntry) -> str:
    """`escalate_below` as the rubric would hold it: a number, or a YAML map."""
    if entry.per_criterion is None:
        return f"{entry.threshold:.4g}"
    pairs = ", ".join(f"{name}: {value:.4g}" for name, value in entry.per_criterion.items())
    return "{" + pairs + "}"


def threshold_cell(group: list[ThresholdEntry], chosen: bool) -> str:
    first, last = group[0].threshold, group[-1].threshold
    cell = f"{first:.4g}" if first == last else f"{first:.4g}–{last:.4g}"
    return cell + (" *" if chosen else "")


def recommendation_line(calibration: Calibration) -> str:
    chosen, target = calibration.recommended, calibration.target_agreement
    goal = "the labels" if calibration.against == "labels" else "the `then` judges"
    if chosen is None:
        what = "No threshold" if calibration.fit == "one" else "No set of thresholds"
        return f"{what} reaches agreement {rate(target)} with {goal}."
    ratio = "" if chosen.cost_ratio is None else f" = {rate(chosen.cost_ratio)} of all-then"
    return (
        f"Recommended: escalate_below: {threshold_text(chosen)} (agreement with then "
        f"{rate(chosen.agreement_with_then)}, with labels {rate(chosen.agreement_with_labels)}"
        f", escalating {rate(chosen.escalation_rate)}, cost {dollars(chosen.cost)}{ratio})."
    )


FIT_HEADER = [
    *("criterion", "threshold", "escalated", "agreement with then", "agreement with labels"),
    *("cost", "all-then cost", "saved"),
]


def fit_rows(fits: list[CriterionFit]) -> list[list[str]]:
    return [
        [
            f.name,
            f"{f.threshold:.4g}",
            rate(f.escalation_rate),
            rate(f.agreement_with_then),
            rate(f.agreement_with_labels),
            dollars(f.cost),
            dollars(f.all_then_cost),
            dollars(f.saved),
        ]
        for f in fits
    ]


def render_calibration_table(calibration: Calibration, console: Console) -> None:
    items = calibration.items
    title = (
        f"Cascade calibration: {calibration.first.experiment} then {calibration.then.experiment}"
        f" ({plural(items.paired, 'item')} paired)"
    )
    console.print(rich_table(title, HEADER, calibration_rows(calibration)))
    if calibration.per_criterion is not None:
        fits = fit_rows(calibration.per_criterion)
        console.print(rich_table("Per-criterion thresholds", FIT_HEADER, fits))
    console.print(recommendation_line(calibration))
    for warning in calibration.warnings:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False)
