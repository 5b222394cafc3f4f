"""The report's ``agreement`` section (its table: `render_metrics`), from the label codes
`metrics_section.CriterionLabels` holds.

Agreement: judges' votes per criterion; errored votes and abstentions are missing
ratings. ``n_items`` counts the items with at least two ratings. Krippendorff's alpha is
nominal for binary and nominal criteria, ordinal (on option ranks) for ordinal ones;
``mean_agreement`` is the mean percent agreement over criteria.
"""

from __future__ import annotations

import numpy as np

from autorubric_cli.metrics.agreement import (
    AlphaLevel,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    pairwise_cohen_kappa,
    percent_agreement,
    rating_counts,
    scotts_pi,
)
from autorubric_cli.metrics.codes import rater_categories
from autorubric_cli.metrics.figures import Figure
from autorubric_cli.report.metrics_section import (
    NEEDS_TWO_JUDGES,
    CriterionLabels,
    figure_value,
    figure_values,
)
from autorubric_cli.report.models import AgreementSection, CriterionAgreement

AGREEMENT_KEYS = (
    "percent_agreement",
    "fleiss_kappa",
    "scotts_pi",
    "gwet_ac1",
    "krippendorff_alpha",
)


def _agreement_figures(
    criterion: CriterionLabels,
) -> tuple[int, dict[str, Figure], dict[str, Figure]]:
    """(items with two or more ratings, coefficients, pairwise kappas) of one criterion."""
    scale = criterion.scale()
    ratings = rater_categories(np.asarray(criterion.judge_votes), scale)
    counts = rating_counts(ratings, scale.n_options)
    level: AlphaLevel = "ordinal" if criterion.kind == "ordinal" else "nominal"
    figures: dict[str, Figure] = {
        "percent_agreement": percent_agreement(counts),
        "fleiss_kappa": fleiss_kappa(counts),
        "scotts_pi": scotts_pi(counts, ratings.shape[1]),
        "gwet_ac1": gwet_ac1(counts),
        "krippendorff_alpha": krippendorff_alpha(counts, level),
    }
    pairs = pairwise_cohen_kappa(ratings, criterion.judge_ids, scale.n_options)
    return int(np.count_nonzero(counts.sum(axis=1) >= 2)), figures, pairs


def criterion_agreement(criterion: CriterionLabels) -> CriterionAgreement:
    """One criterion's agreement block (or one set of pooled pairs')."""
    if len(criterion.judge_ids) < 2:
        reasons = dict.fromkeys(AGREEMENT_KEYS, NEEDS_TWO_JUDGES)
        return CriterionAgreement(
            name=criterion.name,
            kind=criterion.kind,
            n_items=0,
            percent_agreement=None,
            pairwise_cohen_kappa={},
            fleiss_kappa=None,
            scotts_pi=None,
            gwet_ac1=None,
            krippendorff_alpha=None,
            undefined=reasons | {"pairwise_cohen_kappa": NEEDS_TWO_JUDGES},
        )
    n_items, figures, pairs = _agreement_figures(criterion)
    undefined: dict[str, str] = {}

    def value(key: str) -> float | None:
        return figure_value(figures[key], key, undefined)

    percent = value("percent_agreement")  # its reason first, then the pairs', then the rest
    pair_reasons: dict[str, str] = {}
    kappas = figure_values(pairs, pair_reasons)
    undefined.update({f"pairwise_cohen_kappa.{k}": v for k, v in pair_reasons.items()})
    return CriterionAgreement(
        name=criterion.name,
        kind=criterion.kind,
        n_items=n_items,
        percent_agreement=percent,
        pairwise_cohen_kappa=kappas,
        fleiss_kappa=value("fleiss_kappa"),
        scotts_pi=value("scotts_pi"),
        gwet_ac1=value("gwet_ac1"),
        krippendorff_alpha=value("krippendorff_alpha"),
        undefined=undefined,
    )


def agreement_section(labels: list[CriterionLabels]) -> AgreementSection:
    """Inter-judge agreement per criterion, and the mean percent agreement."""
    criteria = [criterion_agreement(criterion) for criterion in labels]
    shares = [c.percent_agreement for c in criteria if c.percent_agreement is not None]
    return AgreementSection(
        mean_agreement=float(np.mean(shares)) if shares else None,
        criteria=criteria,
        undefined=None if shares else {"mean_agreement": "no criterion has a percent agreement"},
    )
