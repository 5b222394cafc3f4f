"""The typed results of `review` (docs/reference/report-json.md#review): computed once, rendered
by every format (rubric_review/render.py)."""

from __future__ import annotations

from autorubric_cli.core.json_model import Block
from autorubric_cli.rubric_review.lint import Finding

NOT_DISCRIMINATING = "does_not_discriminate"
JUDGES_DISAGREE = "judges_disagree"
EXTREME_RATE = 0.95  # met on at least this share (or at most 1 - it) of the sample
LOW_ALPHA = 0.4


class ReviewCheck(Block):
    """One check of the meta-rubric, as the judges answered it for this rubric."""

    name: str
    requirement: str
    weight: float
    verdict: str | None  # MET | UNMET | CANNOT_ASSESS; null when no judge answered
    passed: bool | None  # a positive check MET, or a penalty check UNMET
    reason: str | None
    affected: list[str]  # criteria of the rubric, in its order
    unknown_affected: int  # names the judges gave that are no criterion (dropped)


class ReviewCriterion(Block):
    """One criterion of the rubric under review: what the checks and the sample say of it."""

    name: str
    kind: str
    weight: float
    met_rate: float | None  # binary: share of the sample MET
    top_share: float | None  # multi-choice: share of the sample's most common option
    alpha: float | None  # Krippendorff's alpha between the judges, on the sample
    flags: list[str]
    named_by: list[str]  # checks that name this criterion among those at fault


class SampleSummary(Block):
    items: int
    seed: int
    judges: list[str]
    experiment: str


class ReviewResult(Block):
    """What `review --format json` prints."""

    rubric: str
    task: str | None
    meta: str
    simulated: bool
    quality: float | None  # the meta-rubric's normalized score of the rubric
    min_quality: float | None
    passed: bool | None  # the --min-quality gate; null without it, or when quality is undefined
    checks: list[ReviewCheck]
    criteria: list[ReviewCriterion]
    findings: list[Finding]  # the checks that need no judge (`check --review`)
    sample: SampleSummary | None
    unknown_affected: int
    errored_checks: int  # checks no judge answered
    errored_items: int  # records with a failed vote: the meta stage's, and the sample's
    cost: float | None
    directory: str
