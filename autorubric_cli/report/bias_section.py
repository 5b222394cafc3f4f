"""`judge_bias` (docs/reference/report-json.md): position, order consistency, length and
self-preference per judge, from what the report's fold kept."""

from __future__ import annotations

import numpy as np

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.metrics.figures import FloatArray, Undefined, value_or_none
from autorubric_cli.metrics.judge_bias import (
    FLAG_P,
    PositionTest,
    position_tests,
    self_preference,
    spearman_test,
)
from autorubric_cli.report.fold import ReportFold
from autorubric_cli.report.models_stats import (
    JudgeBias,
    LengthBias,
    LengthCorrelation,
    OrderConsistency,
    PositionBias,
    PositionFigures,
    SelfPreferenceBias,
)


def judge_bias_section(
    fold: ReportFold, judges: list[JudgeSpec], seed: int
) -> dict[str, JudgeBias] | None:
    """Every judge's figures; None when no judge has any."""
    section = {spec.judge_id: judge_bias(fold, spec, judges, seed) for spec in judges}
    if all(b == JudgeBias.empty() for b in section.values()):
        return None
    return section


def judge_bias(fold: ReportFold, spec: JudgeSpec, judges: list[JudgeSpec], seed: int) -> JudgeBias:
    judge = spec.judge_id
    extras = fold.extras
    pairs = extras.order_pairs[judge]
    return JudgeBias(
        position=position_bias(extras.positions[judge]),
        order_consistency=None
        if not pairs["pairs"]
        else OrderConsistency(
            pairs=pairs["pairs"],
            consistent=pairs["consistent"],
            rate=pairs["consistent"] / pairs["pairs"],
        ),
        length=length_bias(fold, judge),
        self_preference=own_model_preference(fold, spec, judges, seed),
    )


def position_figures(test: PositionTest) -> dict[str, object]:
    return {
        "votes": test.votes,
        "counts": test.counts,
        "first_rate": test.first_rate,
        "first_expected": test.first_expected,
        "chi2": test.chi2,
        "dof": test.dof,
        "p_value": value_or_none(test.p_value),
        "expected": test.expected,
    }


def position_bias(counts: dict[str, list[int]]) -> PositionBias | None:
    found = position_tests({name: np.array(c, dtype=np.int64) for name, c in counts.items()})
    if found is None:
        return None
    tests, pooled = found
    p = pooled.p_value
    return PositionBias(
        criteria=[PositionFigures(name=n, **position_figures(t)) for n, t in tests.items()],
        pooled=PositionFigures(**position_figures(pooled)),
        flagged=not isinstance(p, Undefined) and p < FLAG_P,
    )


def correlation_block(x: FloatArray, words: FloatArray) -> LengthCorrelation | None:
    result = spearman_test(x, words)
    if result.n == 0:
        return None
    undefined = {
        key: figure.reason
        for key, figure in (("rho", result.rho), ("p_value", result.p_value))
        if isinstance(figure, Undefined)
    }
    return LengthCorrelation(
        rho=value_or_none(result.rho),
        p_value=value_or_none(result.p_value),
        n=result.n,
        undefined=undefined,
    )


def length_bias(fold: ReportFold, judge: str) -> LengthBias | None:
    words = np.frombuffer(fold.extras.words)
    scores = np.frombuffer(fold.judge_scores[judge])
    plain = correlation_block(scores, words)
    if plain is None:
        return None
    beyond = correlation_block(scores - np.frombuffer(fold.truth_scores), words)
    return LengthBias(**plain.model_dump(), beyond_truth=beyond)


def model_name(model: str) -> str:
    """The part after the provider prefix: `openai/gpt-4.1-mini` → `gpt-4.1-mini`."""
    return model.split("/", 1)[1] if "/" in model else model


def others_mean(fold: ReportFold, judge: str) -> FloatArray:
    """Per item, the mean score of the other judges that scored it (NaN when none did)."""
    columns = [np.frombuffer(a) for j, a in fold.judge_scores.items() if j != judge]
    stacked = np.vstack(columns)
    counts = (~np.isnan(stacked)).sum(axis=0)
    sums = np.where(np.isnan(stacked), 0.0, stacked).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def own_model_preference(
    fold: ReportFold, spec: JudgeSpec, judges: list[JudgeSpec], seed: int
) -> SelfPreferenceBias | None:
    name = model_name(spec.model)
    mask = np.array([m == name for m in fold.extras.models], dtype=bool)
    if len(judges) < 2 or not mask.any():
        return None
    own = np.frombuffer(fold.judge_scores[spec.judge_id])
    result = self_preference(own, others_mean(fold, spec.judge_id), mask, seed)
    if isinstance(result, Undefined):
        return None
    return SelfPreferenceBias(
        model=name,
        difference=result.estimate,
        ci95=None if isinstance(result.ci95, Undefined) else list(result.ci95),
        n_own=result.n_own,
        n_other=result.n_other,
    )
