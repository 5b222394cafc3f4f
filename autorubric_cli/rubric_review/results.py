"""The review's figures from its stages' records: each check's verdict and the criteria it names
(meta stage), each criterion's spread and agreement on the sample (sample stage, through the
report's own fold), and the flags that follow."""

from __future__ import annotations

from pathlib import Path

from autorubric_cli.core.records import CriterionRecord, ItemRecord
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.budget import paid_so_far
from autorubric_cli.experiment.manifest import ITEMS
from autorubric_cli.experiment.opened import OpenedExperiment
from autorubric_cli.experiment.store import ReadIssues, iter_latest_records
from autorubric_cli.report.build import build_report_and_fold
from autorubric_cli.report.models import Report
from autorubric_cli.rubric_review.lint import Finding
from autorubric_cli.rubric_review.meta import known_names
from autorubric_cli.rubric_review.models import (
    EXTREME_RATE,
    JUDGES_DISAGREE,
    LOW_ALPHA,
    NOT_DISCRIMINATING,
    ReviewCheck,
    ReviewCriterion,
)


def meta_record(experiment: OpenedExperiment) -> ItemRecord:
    path = experiment.directory / ITEMS
    records = list(iter_latest_records(path, ReadIssues(), experiment.rubric.criteria))
    if len(records) != 1:
        raise InputError("the meta-rubric stage holds no graded rubric", path=str(path))
    return records[0]


def check_of(check: Criterion, record: CriterionRecord, reviewed: Rubric) -> ReviewCheck:
    """A check's verdict (none when every judge's vote failed); its affected criteria are those
    named by the judges whose vote is the verdict (mapped to the rubric's names; others
    dropped and counted)."""
    answered = [v for v in record.votes if v.error is None]
    verdict = None if record.verdict is None or not answered else record.verdict.value
    named: list[str] = []
    for vote in answered:
        if vote.verdict is not None and vote.verdict.value == verdict:
            named += vote.affected or []
    affected, unknown = known_names(named, reviewed)
    passed = None
    if verdict in ("MET", "UNMET"):
        passed = (verdict == "MET") == (check.weight >= 0)
    return ReviewCheck(
        name=check.name,
        requirement=" ".join(check.requirement.split()),
        weight=check.weight,
        verdict=verdict,
        passed=passed,
        reason=record.reason,
        affected=affected,
        unknown_affected=unknown,
    )


def review_checks(
    experiment: OpenedExperiment, reviewed: Rubric
) -> tuple[list[ReviewCheck], ItemRecord]:
    record = meta_record(experiment)
    checks = [
        check_of(check, entry, reviewed)
        for check, entry in zip(experiment.rubric.criteria, record.criteria, strict=True)
    ]
    return checks, record


def sample_report(experiment: OpenedExperiment | None) -> Report | None:
    return None if experiment is None else build_report_and_fold(experiment)[0]


def spread_flags(
    criterion: Criterion, report: Report | None
) -> tuple[float | None, float | None, float | None, list[str]]:
    """(met rate, top option share, alpha, flags) of a criterion on the sample."""
    if report is None:
        return None, None, None, []
    summary = report.criterion(criterion.name)
    met_rate, top_share = summary.met_rate, None
    if criterion.options is not None:
        counts = summary.distribution.values()
        top_share = max(counts) / sum(counts) if sum(counts) else None
    alpha = next(
        (a.krippendorff_alpha for a in report.agreement.criteria if a.name == criterion.name), None
    )
    flags = []
    if (met_rate is not None and not 1 - EXTREME_RATE < met_rate < EXTREME_RATE) or (
        top_share is not None and top_share >= EXTREME_RATE
    ):
        flags.append(NOT_DISCRIMINATING)
    if alpha is not None and alpha < LOW_ALPHA:
        flags.append(JUDGES_DISAGREE)
    return met_rate, top_share, alpha, flags


def review_criteria(
    reviewed: Rubric, checks: list[ReviewCheck], findings: list[Finding], report: Report | None
) -> list[ReviewCriterion]:
    out = []
    for criterion in reviewed.criteria:
        met_rate, top_share, alpha, flags = spread_flags(criterion, report)
        flags += [f.kind for f in findings if criterion.name in f.criteria and f.kind not in flags]
        named_by = [c.name for c in checks if c.passed is False and criterion.name in c.affected]
        out.append(
            ReviewCriterion(
                name=criterion.name,
                kind=criterion.kind,
                weight=criterion.weight,
                met_rate=met_rate,
                top_share=top_share,
                alpha=alpha,
                flags=flags,
                named_by=named_by,
            )
        )
    return out


def stage_cost(*directories: Path) -> float:
    """What the stages paid: every line of their records, as the spend cap counts it."""
    return sum(paid_so_far(directory / ITEMS) for directory in directories)


def errored_items(experiment: OpenedExperiment) -> int:
    """Items of the stage whose newest record has a failed vote."""
    records = iter_latest_records(
        experiment.directory / ITEMS, ReadIssues(), experiment.rubric.criteria
    )
    return sum(r.status == "error" for r in records)
