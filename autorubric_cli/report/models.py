"""The report (docs/reference/report-json.md) as typed, frozen models: built by `build`, read by
every renderer.

The models' fields are declared in the order the keys appear in the JSON, and a key that is
sometimes absent (not null) is declared with `absent()` (`core.json_model`). Dynamic keys
(judge ids, option labels, token kinds, ``undefined`` reasons, interval keys) stay dicts.
Numbers that can be an int or a float in the JSON are typed ``int | float`` so an int is never
printed as a float.

The gate (docs/guides/ci.md) evaluates metric paths over the report's JSON form (`core.gate`), so
the gate's dotted paths mean exactly what they mean in the JSON a user reads; its result is then
validated into `GateResult`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from autorubric_cli.core.json_model import Block, absent
from autorubric_cli.report.models_cascade import CascadeSection
from autorubric_cli.report.models_stats import ClusteredInterval, JudgeBias
from autorubric_cli.report.models_tags import ItemCriteriaSummary, TagsSection

Number = int | float
Kind = Literal["binary", "ordinal", "nominal"]


class ItemCounts(Block):
    total: int
    completed: int
    errored: int
    pending: int


class ScoreSummary(Block):
    n: int
    mean: float | None
    median: float | None
    std: float | None
    min: float | None
    max: float | None
    ci95: list[float] | None
    se: float | None = None  # std / sqrt(n), ddof 1
    clustered: ClusteredInterval | None = None
    # `grader.clip: mean`: the mean and its intervals are of the unclamped item scores,
    # clamped to [0, 1] (absent under the default `item`)
    clip: Literal["mean"] | None = absent()


class CriterionSummary(Block):
    name: str
    kind: Kind
    weight: float
    met_rate: float | None
    mean_value: float | None
    cannot_assess_rate: float | None
    distribution: dict[str, int]
    agreement: float | None
    clustered: ClusteredInterval | None = None


class JudgeSummary(Block):
    id: str
    model: str
    weight: float
    simulated: bool
    mean_score: float | None
    votes: int
    errors: int
    retries: int
    ignored_fields: int  # reply fields filled although not asked, ignored (report-json.md)
    usage: dict[str, int]
    cost: float | None
    cached: int
    usage_saved: dict[str, int]
    cost_saved: float | None
    # USD the provider's prompt cache saved (docs/guides/prompt-caching.md)
    prompt_cache_saved: float | None


class CriterionAgreement(Block):
    name: str
    kind: Kind
    n_items: int
    percent_agreement: float | None
    pairwise_cohen_kappa: dict[str, float | None]
    fleiss_kappa: float | None
    scotts_pi: float | None
    gwet_ac1: float | None
    krippendorff_alpha: float | None
    undefined: dict[str, str]


class PooledAgreement(CriterionAgreement):
    """Agreement between judges over the (item, criterion) pairs of binary item criteria
    (`n_items` counts the pairs with two or more ratings), and again per criterion tag."""

    tags: dict[str, CriterionAgreement]


class AgreementSection(Block):
    mean_agreement: float | None
    criteria: list[CriterionAgreement]
    undefined: dict[str, str] | None = absent()
    pooled: PooledAgreement | None = absent()  # with item criteria


Interval = list[float] | None


class BinaryMetrics(Block):
    name: str
    kind: Literal["binary"]
    n: int
    accuracy: float | None
    precision: float | None
    recall: float | None
    f1: float | None
    cohen_kappa: float | None
    mcc: float | None
    fpr: float | None
    fnr: float | None
    labels: list[str]
    confusion: list[list[int]]
    ci95: dict[str, Interval]
    undefined: dict[str, str]


class OrdinalMetrics(Block):
    name: str
    kind: Literal["ordinal"]
    n: int
    accuracy: float | None
    cohen_kappa: float | None
    adjacent_accuracy: float | None
    linear_kappa: float | None
    quadratic_kappa: float | None
    spearman: float | None
    kendall: float | None
    rmse: float | None
    mae: float | None
    labels: list[str]
    confusion: list[list[int]]
    ci95: dict[str, Interval]
    undefined: dict[str, str]


class OptionFigures(Block):
    precision: float | None
    recall: float | None
    f1: float | None
    support: int


class NominalMetrics(Block):
    name: str
    kind: Literal["nominal"]
    n: int
    accuracy: float | None
    cohen_kappa: float | None
    per_option: dict[str, OptionFigures]
    labels: list[str]
    confusion: list[list[int]]
    ci95: dict[str, Interval]
    undefined: dict[str, str]


CriterionMetrics = Annotated[
    BinaryMetrics | OrdinalMetrics | NominalMetrics, Field(discriminator="kind")
]


class ScoreMetrics(Block):
    n: int
    pearson: float | None
    spearman: float | None
    kendall: float | None
    rmse: float | None
    mae: float | None
    bias: float | None
    ci95: dict[str, Interval]
    undefined: dict[str, str]


class OverallMetrics(Block):
    micro_accuracy: float | None
    macro_accuracy: float | None
    mean_kappa: float | None
    undefined: dict[str, str]


class PredictorMetrics(Block):
    """One predictor (the ensemble or a judge) against the ground truth."""

    criteria: list[CriterionMetrics]
    score: ScoreMetrics
    overall: OverallMetrics


class PooledTruth(Block):
    """Pooled (item, criterion) pairs against the ground truth: the ensemble and each judge."""

    ensemble: BinaryMetrics
    judges: dict[str, BinaryMetrics]


class PooledGroundTruth(PooledTruth):
    """Every pair of binary item criteria, and again the pairs of each criterion tag."""

    tags: dict[str, PooledTruth]


class GroundTruthSection(Block):
    ca_mode: str
    criteria: list[CriterionMetrics]
    score: ScoreMetrics
    overall: OverallMetrics
    judges: dict[str, PredictorMetrics]
    pooled: PooledGroundTruth | None = absent()  # with item criteria

    def ensemble(self) -> PredictorMetrics:
        return PredictorMetrics(criteria=self.criteria, score=self.score, overall=self.overall)


class InterRaterCriterion(Block):
    name: str
    kind: Kind
    n_items: int  # items with two or more raters
    n_labelled: int
    krippendorff_alpha: float | None
    percent_agreement: float | None
    undefined: dict[str, str]


class InterRater(Block):
    criteria: list[InterRaterCriterion]


class HumanLabelsSection(Block):
    """docs/guides/labels.md: the raters, their agreement, and the judges against the labels
    alone."""

    raters: list[str]
    items_labelled: int
    items_by_raters: dict[str, int]  # number of raters -> items with that many
    ground_truth: str  # "majority" or "rater:NAME"
    inter_rater: InterRater
    judges: GroundTruthSection | None


class ErroredItem(Block):
    id: str
    error: str


class WhatIf(Block):
    score: ScoreSummary


class GateCheckResult(Block):
    """One check: its bounds (each key present only when set), value and outcome."""

    metric: str
    min: Number | None = absent()
    max: Number | None = absent()
    value: Number | None
    passed: bool
    reason: str | None = absent()
    undefined_by_errors: bool | None = absent()


class GateResult(Block):
    passed: bool
    checks: list[GateCheckResult]


class FewShotSummary(Block):
    """Few-shot examples of the run (docs/reference/report-json.md): where they came from, and
    how many graded items had their own example withheld (leave-one-out)."""

    examples: str
    withheld: int


class Report(Block):
    experiment: str
    status: str
    error: str | None  # why a `failed` run stopped
    shard: str | None  # "K/N" for a shard's experiment
    simulated: bool
    items: ItemCounts
    score: ScoreSummary
    criteria: list[CriterionSummary]  # the shared criteria (the rubric file's)
    item_criteria: ItemCriteriaSummary | None = absent()  # with items' own criteria
    tags: TagsSection | None = absent()  # with tags on criteria or items
    judges: list[JudgeSummary]
    agreement: AgreementSection
    ground_truth: GroundTruthSection | None
    human_labels: HumanLabelsSection | None
    usage: dict[str, int]
    cost: float | None
    usage_saved: dict[str, int]
    cost_saved: float | None
    retries: int
    error_votes: int
    errored_items: list[ErroredItem]
    warnings: list[str]
    what_if: WhatIf | None = absent()
    cascade: CascadeSection | None = absent()  # with `grader.cascade` (docs/guides/cascades.md)
    few_shot: FewShotSummary | None = absent()  # with `grader.few_shot`
    gate: GateResult | None = None
    judge_bias: dict[str, JudgeBias] | None = None

    def criterion(self, name: str) -> CriterionSummary:
        return next(c for c in self.criteria if c.name == name)
