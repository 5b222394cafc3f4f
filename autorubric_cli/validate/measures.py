"""Human-judge agreement measures, one function each (Guerdan et al., Table 1).

Arrays hold one row per item (only items both sides rated). Conventions follow the paper's
published code so figures are comparable: KL and cross-entropy clip probabilities at 1e-10;
Jensen-Shannon is scipy's distance (natural log) with zeros replaced by 1e-10; MSE and BCE sum
over options, then average over items. Kappas and alpha come from the metrics layer, on the
pair (human hard label, judge hard label) per item, at the nominal level.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.spatial import distance

from autorubric_cli.metrics.agreement import (
    fleiss_kappa,
    krippendorff_alpha,
    rating_counts,
    scotts_pi,
)
from autorubric_cli.metrics.classification import cohen_kappa, confusion_matrix
from autorubric_cli.metrics.figures import (
    BoolArray,
    Figure,
    FloatArray,
    IntArray,
    Undefined,
    figure,
)

CLIP = 1e-10
NO_ITEMS = "no item rated by both humans and the judge"


def _none(n: int) -> Undefined | None:
    return Undefined(NO_ITEMS) if n == 0 else None


def hit_rate(human: IntArray, judge: IntArray) -> Figure:
    """Share of items where the judge's hard label is the human hard label."""
    return _none(human.size) or figure(np.mean(human == judge))


def pair_ratings(human: IntArray, judge: IntArray) -> IntArray:
    """(items, 2) ratings table: human hard label, judge hard label."""
    return np.column_stack([human, judge]).astype(np.int64)


def pair_cohen_kappa(human: IntArray, judge: IntArray, q: int) -> Figure:
    return cohen_kappa(confusion_matrix(human, judge, q))


def pair_fleiss_kappa(human: IntArray, judge: IntArray, q: int) -> Figure:
    return fleiss_kappa(rating_counts(pair_ratings(human, judge), q))


def pair_krippendorff_alpha(human: IntArray, judge: IntArray, q: int) -> Figure:
    return krippendorff_alpha(rating_counts(pair_ratings(human, judge), q), "nominal")


def pair_scotts_pi(human: IntArray, judge: IntArray, q: int) -> Figure:
    return scotts_pi(rating_counts(pair_ratings(human, judge), q), 2)


def kl_divergence(p: FloatArray, r: FloatArray) -> Figure:
    """Mean over items of KL(p || r), both clipped at 1e-10."""
    a, b = np.clip(p, CLIP, None), np.clip(r, CLIP, None)
    return _none(len(p)) or figure(np.mean(np.sum(a * np.log(a / b), axis=1)))


def cross_entropy(p: FloatArray, r: FloatArray) -> Figure:
    """Mean over items of H(p, r) = -sum p log r, r clipped at 1e-10."""
    return _none(len(p)) or figure(np.mean(-np.sum(p * np.log(np.clip(r, CLIP, None)), axis=1)))


def jensen_shannon(p: FloatArray, r: FloatArray) -> Figure:
    """Mean Jensen-Shannon distance (scipy, natural log), zeros replaced by 1e-10."""
    if len(p) == 0:
        return Undefined(NO_ITEMS)
    a, b = np.where(p == 0, CLIP, p), np.where(r == 0, CLIP, r)
    return figure(np.mean(distance.jensenshannon(a, b, axis=1)))


def coverage(judge_hard: IntArray, human_sets: BoolArray) -> Figure:
    """Share of items where the judge's hard choice is in the human hard response set."""
    n = judge_hard.size
    return _none(n) or figure(np.mean(human_sets[np.arange(n), judge_hard]))


def overlap_share(base: BoolArray, other: BoolArray, whose: str) -> Figure:
    """Mean |B & O| / |B| over items whose `base` set is not empty."""
    if len(base) == 0:
        return Undefined(NO_ITEMS)
    sizes = base.sum(axis=1)
    keep = sizes > 0
    if not keep.any():
        return Undefined(f"every {whose} response set is empty at this tau")
    shared = (base & other).sum(axis=1)
    return figure(np.mean(shared[keep] / sizes[keep]))


def set_precision(judge_sets: BoolArray, human_sets: BoolArray) -> Figure:
    """Mean |J & H| / |J| over items whose judge set is not empty."""
    return overlap_share(judge_sets, human_sets, "judge")


def set_recall(judge_sets: BoolArray, human_sets: BoolArray) -> Figure:
    """Mean |J & H| / |H| over items whose human set is not empty."""
    return overlap_share(human_sets, judge_sets, "human")


def efficiency(judge_sets: BoolArray) -> Figure:
    """Mean size of the judge's hard response set (descriptive: smaller is sharper)."""
    return _none(len(judge_sets)) or figure(np.mean(judge_sets.sum(axis=1)))


def binary_cross_entropy(p: FloatArray, r: FloatArray) -> Figure:
    """Mean over items of -sum_k [p log r + (1 - p) log(1 - r)], r clipped to [1e-10, 1]."""
    rr = np.clip(r, CLIP, 1.0)
    rest = np.clip(1.0 - r, CLIP, 1.0)
    terms = p * np.log(rr) + (1.0 - p) * np.log(rest)
    return _none(len(p)) or figure(np.mean(-np.sum(terms, axis=1)))


def mean_squared_error(p: FloatArray, r: FloatArray) -> Figure:
    """Mean over items of sum_k (p_k - r_k)^2."""
    return _none(len(p)) or figure(np.mean(np.sum((p - r) ** 2, axis=1)))


def decisions(y: FloatArray, positive: Sequence[int], tau: float) -> BoolArray:
    """s(y) = 1[sum of y over the positive options >= tau], per item."""
    return np.asarray(y[:, list(positive)].sum(axis=1) >= tau, dtype=np.bool_)


def decision_consistency(judge: BoolArray, human: BoolArray) -> Figure:
    """Share of items where the judge's decision equals the human decision."""
    return _none(judge.size) or figure(np.mean(judge == human))


def prevalence_bias(judge: BoolArray, human: BoolArray) -> Figure:
    """Judge's positive rate minus the humans' (positive: the judge flags more)."""
    return _none(judge.size) or figure(np.mean(judge) - np.mean(human))
