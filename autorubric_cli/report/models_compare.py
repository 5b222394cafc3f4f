"""The comparison of two experiments (docs/guides/compare.md) as typed, frozen models.

Same rules as `models`: fields in JSON key order, `absent()` for keys that are sometimes
left out, dicts for dynamic keys (transition names, option labels, ``undefined`` reasons).
A criterion that could not be compared (only on one side, different kind or options, no
pair assessed on both sides) is an `UncomparedCriterion`: its keys come in another order.
"""

from __future__ import annotations

from pydantic import Field

from autorubric_cli.core.json_model import Block, absent
from autorubric_cli.report.models import GateCheckResult, Kind


class CompareSide(Block):
    experiment: str
    path: str


class PairCounts(Block):
    paired: int
    only_base: int
    only_new: int
    excluded: int
    excluded_errored: int


class ErroredCounts(Block):
    """Errored items on each side (only NEW's make the exit code 3)."""

    base: int
    new: int


class ClusteredComparison(Block):
    """The paired differences' mean with cluster-robust errors (docs/reference/report-json.md)."""

    key: str
    clusters: int
    se: float | None
    ci95: list[float] | None
    p_value: float | None
    mde80: float | None
    ci95_t: list[float] | None = None  # Student's t on clusters − 1 degrees of freedom
    p_value_t: float | None = None


class ScoreComparison(Block):
    base_mean: float | None
    new_mean: float | None
    diff: float | None
    ci95: list[float] | None
    p_value: float | None
    p_value_sign: float | None
    improved: int
    regressed: int
    unchanged: int
    n: int
    undefined: dict[str, str]
    se_diff: float | None = None  # std(diffs, ddof 1) / sqrt(n)
    mde80: float | None = None  # (z_{1-alpha/2} + z_{0.8}) · se_diff
    clustered: ClusteredComparison | None = None
    below_mde80: bool | None = None  # |diff| < the mde80 shown (clustered when there is one)
    alpha: float = 0.05  # `--alpha`: the level of every "significant" and of mde80


class Distributions(Block):
    base: dict[str, int]
    new: dict[str, int]


class CriterionComparison(Block):
    name: str
    kind: Kind
    weight: float
    test: str
    n: int
    n_valued: int | None = absent()  # ordinal criteria: pairs with a value on both sides
    base: float | None
    new: float | None
    diff: float | None
    p_value: float | None
    transitions: dict[str, int]
    distribution: Distributions
    undefined: dict[str, str]
    p_adjusted: float | None = None


class UncomparedCriterion(Block):
    name: str
    kind: Kind
    weight: float
    base: None = None
    new: None = None
    diff: None = None
    p_value: None = None
    test: str | None
    n: int
    transitions: dict[str, int] = Field(default_factory=dict)
    undefined: dict[str, str]
    only: str | None = absent()  # "base" or "new"
    p_adjusted: float | None = None


class JudgeComparison(Block):
    id: str
    base_mean: float | None
    new_mean: float | None
    diff: float | None
    n: int
    only: str | None = absent()


class Flip(Block):
    criterion: str
    base: str
    new: str


class MovedItem(Block):
    id: str
    base: float
    new: float
    diff: float
    flips: list[Flip]


class RegressionCheck(Block):
    """`--fail-on-regression`: NEW worse (diff < 0) with a p-value below alpha (the clustered
    one with a cluster key, else Wilcoxon's)."""

    metric: str
    alpha: float
    diff: float | None
    value: float | None
    passed: bool
    reason: str | None = absent()
    test: str | None = absent()  # "wilcoxon", or "clustered" with a cluster key


CompareCheck = GateCheckResult | RegressionCheck


class CompareGate(Block):
    passed: bool
    checks: list[CompareCheck]


class ItemCriteriaComparison(Block):
    """The items' own criteria (docs/guides/compare.md, "Per-item rubrics"): pairs of the same
    name and definition, and the binary ones pooled (`test: "wilcoxon_items"`)."""

    items: int  # paired items with criteria of their own on either side
    paired_criteria: int  # binary item criteria paired by name and definition
    left_out: int  # item criteria whose definition differs, or on one side only
    differing_items: int  # paired items with such a criterion
    pooled: CriterionComparison | UncomparedCriterion


class CompareResult(Block):
    base: CompareSide
    new: CompareSide
    warnings: list[str]
    items: PairCounts
    errored: ErroredCounts
    score: ScoreComparison
    criteria: list[CriterionComparison | UncomparedCriterion]
    item_criteria: ItemCriteriaComparison | None = absent()  # with the items' own criteria
    judges: list[JudgeComparison]
    moved: list[MovedItem]
    ca_mode: str
    seed: int
    gate: CompareGate | None = None
