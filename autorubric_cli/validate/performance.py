"""Every definition of judge performance for one judge against the humans on one criterion.

A definition is (judge aggregation / human aggregation / metric), averaged over the items both
sides rated. Downstream, for a positive option set P and cutoff tau, s(y) = 1[sum_P y >= tau]:
decision consistency C = mean 1[s(judge) = s(human)] and prevalence bias
B = mean s(judge) - mean s(human), under the response-set aggregation (srs, Omega: the
primary figures) and under the forced-choice aggregation (soft, O: the ``_fc`` figures).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from autorubric_cli.metrics.figures import Figure
from autorubric_cli.validate import measures as m
from autorubric_cli.validate.distributions import (
    RaterDistributions,
    hard_labels,
    hard_response_sets,
    rows,
)

HIGHER_IS_BETTER = (
    "hit_rate",
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "scotts_pi",
    "coverage",
    "precision",
    "recall",
    "decision_consistency",
    "decision_consistency_fc",
)
LOWER_IS_BETTER = (
    "kl_human_judge",
    "kl_judge_human",
    "ce_human_judge",
    "ce_judge_human",
    "jsd",
    "bce",
    "mse",
)
ABS_LOWER_IS_BETTER = ("prevalence_bias", "prevalence_bias_fc")
UNRANKED = ("efficiency",)
METRICS = (
    "hit_rate",
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "scotts_pi",
    "kl_human_judge",
    "kl_judge_human",
    "ce_human_judge",
    "ce_judge_human",
    "jsd",
    "coverage",
    "precision",
    "recall",
    "efficiency",
    "bce",
    "mse",
    "decision_consistency",
    "prevalence_bias",
    "decision_consistency_fc",
    "prevalence_bias_fc",
)
RANKED = tuple(name for name in METRICS if name not in UNRANKED)
"""The definitions that pick a best judge and enter rank correlations."""
BETA_DEPENDENT = ("coverage", "precision", "recall", "bce", "mse")


@dataclass(frozen=True)
class Downstream:
    """The positive option set and the cutoff tau (also the hard-response-set threshold)."""

    positive: tuple[int, ...]
    tau: float = 0.5


def judge_performance(
    human: RaterDistributions, judge: RaterDistributions, downstream: Downstream, q: int
) -> dict[str, Figure]:
    """Every definition in ``METRICS`` on the items both sides rated."""
    both = human.present & judge.present
    h, j = rows(human, both), rows(judge, both)
    figures = categorical(h, j, q)
    figures.update(distributional(h, j))
    figures.update(multilabel(h, j, downstream.tau))
    figures.update(downstream_figures(h, j, downstream))
    return {name: figures[name] for name in METRICS}


def categorical(h: RaterDistributions, j: RaterDistributions, q: int) -> dict[str, Figure]:
    """hard / hard."""
    hh, jh = hard_labels(h.forced), hard_labels(j.forced)
    return {
        "hit_rate": m.hit_rate(hh, jh),
        "cohen_kappa": m.pair_cohen_kappa(hh, jh, q),
        "fleiss_kappa": m.pair_fleiss_kappa(hh, jh, q),
        "krippendorff_alpha": m.pair_krippendorff_alpha(hh, jh, q),
        "scotts_pi": m.pair_scotts_pi(hh, jh, q),
    }


def distributional(h: RaterDistributions, j: RaterDistributions) -> dict[str, Figure]:
    """soft / soft."""
    return {
        "kl_human_judge": m.kl_divergence(h.forced, j.forced),
        "kl_judge_human": m.kl_divergence(j.forced, h.forced),
        "ce_human_judge": m.cross_entropy(h.forced, j.forced),
        "ce_judge_human": m.cross_entropy(j.forced, h.forced),
        "jsd": m.jensen_shannon(h.forced, j.forced),
    }


def multilabel(h: RaterDistributions, j: RaterDistributions, tau: float) -> dict[str, Figure]:
    """hard / hrs (coverage), hrs / hrs (precision, recall, efficiency), srs / srs."""
    human_sets = hard_response_sets(h.multilabel, tau)
    judge_sets = hard_response_sets(j.multilabel, tau)
    return {
        "coverage": m.coverage(hard_labels(j.forced), human_sets),
        "precision": m.set_precision(judge_sets, human_sets),
        "recall": m.set_recall(judge_sets, human_sets),
        "efficiency": m.efficiency(judge_sets),
        "bce": m.binary_cross_entropy(h.multilabel, j.multilabel),
        "mse": m.mean_squared_error(h.multilabel, j.multilabel),
    }


def downstream_figures(
    h: RaterDistributions, j: RaterDistributions, downstream: Downstream
) -> dict[str, Figure]:
    """C and B under the response-set (primary) and the forced-choice aggregations."""
    positive, tau = downstream.positive, downstream.tau
    rs_j, rs_h = m.decisions(j.multilabel, positive, tau), m.decisions(h.multilabel, positive, tau)
    fc_j, fc_h = m.decisions(j.forced, positive, tau), m.decisions(h.forced, positive, tau)
    return {
        "decision_consistency": m.decision_consistency(rs_j, rs_h),
        "prevalence_bias": m.prevalence_bias(rs_j, rs_h),
        "decision_consistency_fc": m.decision_consistency(fc_j, fc_h),
        "prevalence_bias_fc": m.prevalence_bias(fc_j, fc_h),
    }


def goodness(name: str) -> Callable[[float], float]:
    """Maps a metric's value to a score where higher is better."""
    if name in LOWER_IS_BETTER:
        return lambda v: -v
    if name in ABS_LOWER_IS_BETTER:
        return lambda v: -abs(v)
    return lambda v: v


def direction(name: str) -> str:
    if name in LOWER_IS_BETTER:
        return "lower"
    if name in ABS_LOWER_IS_BETTER:
        return "closer to 0"
    return "higher" if name in HIGHER_IS_BETTER else "none"
