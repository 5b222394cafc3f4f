"""The result of `autorubric validate` as typed, frozen models (the `--format json` JSON).

Fields are declared in JSON key order (`core.json_model`). Dicts keyed by metric name
(``best``, ``best_tied``, ``selections``, ``rank_correlation``, ``directions``) and by judge id
stay dicts: their keys are the metrics and judges of the run.
"""

from __future__ import annotations

from typing import Literal

from autorubric_cli.core.json_model import Block

Number = int | float  # as given: a flag's 1 stays 1 in the JSON


class JudgeValidation(Block):
    """One judge (or the ensemble) against the human raters, every definition of performance."""

    hit_rate: float | None
    cohen_kappa: float | None
    fleiss_kappa: float | None
    krippendorff_alpha: float | None
    scotts_pi: float | None
    kl_human_judge: float | None
    kl_judge_human: float | None
    ce_human_judge: float | None
    ce_judge_human: float | None
    jsd: float | None
    coverage: float | None
    precision: float | None
    recall: float | None
    efficiency: float | None
    bce: float | None
    mse: float | None
    decision_consistency: float | None
    prevalence_bias: float | None
    decision_consistency_fc: float | None
    prevalence_bias_fc: float | None
    n_items: int
    samples_per_item: float | None


class FcModelDescription(Block):
    kind: str
    beta: Number | None  # None for a user's --fc-matrix
    pair: list[str] | None


class RatingsPerItem(Block):
    min: int
    mean: float


class RankInversion(Block):
    a: str
    b: str
    a_best: list[str]
    b_best: list[str]


class SweepRow(Block):
    beta: Number
    best: dict[str, str | None]
    decision_consistency: dict[str, float | None]
    prevalence_bias: dict[str, float | None]


class CriterionValidation(Block):
    name: str
    kind: Literal["binary", "ordinal", "nominal"]
    options: list[str]
    positive: list[str]
    positive_from_flag: bool
    tau: Number
    fc_model: FcModelDescription
    beta_pair: list[str] | None
    n_items: int
    ratings_per_item: RatingsPerItem
    human_response_sets: int
    judges: dict[str, JudgeValidation]
    best: dict[str, str | None]
    best_tied: dict[str, list[str]]
    selections: dict[str, list[str]]
    rank_correlation: dict[str, float | None]
    rank_inversions: list[RankInversion]
    beta_sweep: list[SweepRow]
    undefined: dict[str, dict[str, str]]
    warnings: list[str]


class Validation(Block):
    """Every validated criterion, before the experiment's name is attached."""

    judges: list[str]
    directions: dict[str, str]
    criteria: list[CriterionValidation]
    warnings: list[str]


class ValidateResult(Block):
    experiment: str
    simulated: bool
    judges: list[str]
    directions: dict[str, str]
    criteria: list[CriterionValidation]
    warnings: list[str]
