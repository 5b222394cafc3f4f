"""The report's uncertainty and judge-bias blocks as typed models (docs/reference/report-json.md).

`ClusteredInterval` is `score.clustered` and `criteria[].clustered`; `JudgeBias` is one judge's
entry of `judge_bias`. Same rules as `models`: fields in JSON key order, null where undefined,
the reason in `undefined`.
"""

from __future__ import annotations

from autorubric_cli.core.json_model import Block, absent


class ClusteredInterval(Block):
    key: str
    clusters: int
    se: float | None
    ci95: list[float] | None
    ci95_t: list[float] | None = None  # Student's t on clusters − 1 degrees of freedom


class PositionFigures(Block):
    """Votes by shown position of the chosen option against the uniform (chi-square); `name`
    is the criterion's (absent in the pooled figures)."""

    name: str | None = absent()
    votes: int
    counts: list[int]
    first_rate: float
    first_expected: float
    chi2: float
    dof: int
    p_value: float | None
    expected: list[float] = []  # an unbiased judge's share of the votes at each position


class PositionBias(Block):
    criteria: list[PositionFigures]
    pooled: PositionFigures
    flagged: bool


class OrderConsistency(Block):
    pairs: int
    consistent: int
    rate: float


class LengthCorrelation(Block):
    rho: float | None
    p_value: float | None
    n: int
    undefined: dict[str, str]


class LengthBias(LengthCorrelation):
    beyond_truth: LengthCorrelation | None  # (judge score − ground-truth score) vs words


class SelfPreferenceBias(Block):
    model: str
    difference: float
    ci95: list[float] | None
    n_own: int
    n_other: int


class JudgeBias(Block):
    position: PositionBias | None
    order_consistency: OrderConsistency | None
    length: LengthBias | None
    self_preference: SelfPreferenceBias | None

    @classmethod
    def empty(cls) -> JudgeBias:
        return cls(position=None, order_consistency=None, length=None, self_preference=None)
