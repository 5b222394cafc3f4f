"""The report's `human_labels` section (docs/guides/labels.md): who labelled how much, how far the
raters agree with one another, and how far the judges agree with the labels.

- `items_by_raters`: number of raters -> number of items with that many raters.
- `inter_rater`: per criterion, each rater's forced choice as one rater of a reliability
  matrix (items x raters; abstentions missing), Krippendorff's alpha (nominal for binary and
  nominal criteria, ordinal on option ranks for ordinal ones) and percent agreement, exactly
  as the judges' `agreement` section computes them.
- `judges`: the `ground_truth` section's figures (accuracy, kappas, ... with 95% bootstrap
  intervals) computed against the labels' ground truth alone (`ground_truth`: majority or
  rater:NAME), whatever the dataset holds.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from rich.table import Table

from autorubric_cli.core.rubric import Criterion
from autorubric_cli.labels.overlay import LabelOverlay
from autorubric_cli.metrics.agreement import (
    AlphaLevel,
    krippendorff_alpha,
    percent_agreement,
    rating_counts,
)
from autorubric_cli.metrics.codes import MISSING, build_scale, rater_categories
from autorubric_cli.report.fold_codes import label_code, option_labels, option_values
from autorubric_cli.report.formats import AGREEING_PAIRS, interval, number, plural
from autorubric_cli.report.metrics_section import (
    CriterionLabels,
    figure_value,
    ground_truth_section,
)
from autorubric_cli.report.models import (
    CriterionMetrics,
    HumanLabelsSection,
    InterRater,
    InterRaterCriterion,
    PooledGroundTruth,
)


def rater_matrix(overlay: LabelOverlay, criterion: Criterion) -> tuple[list[str], np.ndarray]:
    """(raters, label codes with one row per item some rater labelled for this criterion)."""
    raters = sorted({r for by_rater in overlay.raters.values() for r in by_rater})
    rows = []
    for item_id in sorted(overlay.raters):
        by_rater = overlay.raters[item_id]
        codes = [label_code(criterion, by_rater.get(r, {}).get(criterion.name)) for r in raters]
        if any(c != MISSING for c in codes):
            rows.append(codes)
    return raters, np.array(rows, dtype=np.int64).reshape(len(rows), len(raters))


def inter_rater(overlay: LabelOverlay, criterion: Criterion) -> InterRaterCriterion:
    raters, codes = rater_matrix(overlay, criterion)
    scale = build_scale(
        criterion.kind, option_labels(criterion), option_values(criterion), "exclude"
    )
    ratings = rater_categories(codes, scale)
    counts = rating_counts(ratings, scale.n_options)
    level: AlphaLevel = "ordinal" if criterion.kind == "ordinal" else "nominal"
    undefined: dict[str, str] = {}
    alpha = krippendorff_alpha(counts, level)
    agreement = percent_agreement(counts)
    return InterRaterCriterion(
        name=criterion.name,
        kind=criterion.kind,
        n_items=int(np.count_nonzero(counts.sum(axis=1) >= 2)),
        n_labelled=int(codes.shape[0]),
        krippendorff_alpha=figure_value(alpha, "krippendorff_alpha", undefined),
        percent_agreement=figure_value(agreement, "percent_agreement", undefined),
        undefined=undefined,
    )


def human_labels_section(
    overlay: LabelOverlay,
    criteria: list[Criterion],
    human_only: list[CriterionLabels],
    *,
    ca_mode: str,
    seed: int,
    pooled: PooledGroundTruth | None = None,
) -> HumanLabelsSection:
    """`pooled`: the item criteria's pooled pairs against the labels alone."""
    blocks = [inter_rater(overlay, c) for c in criteria]
    per_item = Counter(len(by_rater) for by_rater in overlay.raters.values())
    n_items = len(human_only[0].truth) if human_only else 0
    judges = ground_truth_section(
        human_only, np.full(n_items, np.nan), {}, ca_mode=ca_mode, seed=seed, pooled=pooled
    )
    return HumanLabelsSection(
        raters=sorted({r for by_rater in overlay.raters.values() for r in by_rater}),
        items_labelled=len(overlay.raters),
        items_by_raters={str(k): per_item[k] for k in sorted(per_item)},
        ground_truth=overlay.source,
        inter_rater=InterRater(criteria=[b for b in blocks if b.n_labelled]),
        judges=judges,
    )


def _with_ci(block: CriterionMetrics, key: str) -> str:
    """The figure (a field of the block's kind) with its interval."""
    ci = block.ci95.get(key)
    text = number(getattr(block, key, None))
    return text if not ci else f"{text} {interval(ci)}"


HUMAN_LABELS = "Human labels"
RATER_COLUMNS = ("criterion", "items (2+ raters)", "Kripp. α (raters)", AGREEING_PAIRS)
JUDGES_VS_LABELS = "Judges against the human labels: accuracy [95% CI]"


def raters_summary(section: HumanLabelsSection) -> str:
    """Who labelled, how many items have how many raters, and the ground truth chosen."""
    counts = ", ".join(
        f"{plural(int(n), 'rater')}: {plural(k, 'item')}"
        for n, k in section.items_by_raters.items()
    )
    raters = f"{plural(len(section.raters), 'rater')} ({', '.join(section.raters)})"
    return f"{raters}; {counts}; ground truth: {section.ground_truth}"


def rater_rows(section: HumanLabelsSection) -> list[list[str]]:
    """One row of `RATER_COLUMNS` per labelled criterion."""
    return [
        [
            rated.name,
            number(rated.n_items),
            number(rated.krippendorff_alpha),
            number(rated.percent_agreement),
        ]
        for rated in section.inter_rater.criteria
    ]


def judges_vs_labels(section: HumanLabelsSection) -> tuple[list[str], list[list[str]]] | None:
    """(header, rows): each criterion with ground truth, the accuracy [95% CI] of the ensemble
    and of every judge against the labels; None without such figures."""
    judges = section.judges
    if judges is None:
        return None
    predictors = {"ensemble": judges.ensemble(), **judges.judges}
    rows = [
        [block.name, *(_with_ci(p.criteria[index], "accuracy") for p in predictors.values())]
        for index, block in enumerate(judges.criteria)
        if block.n
    ]
    return ["criterion", *predictors], rows


def human_labels_tables(section: HumanLabelsSection) -> list[Table]:
    """Raters per item, inter-rater agreement, and the judges' accuracy against the labels."""
    raters = Table(title=f"{HUMAN_LABELS}: {raters_summary(section)}")
    for column in RATER_COLUMNS:
        raters.add_column(column)
    for row in rater_rows(section):
        raters.add_row(*row)
    tables = [raters]
    versus = judges_vs_labels(section)
    if versus is not None:
        header, rows = versus
        table = Table(title=JUDGES_VS_LABELS)
        for column in header:
            table.add_column(column)
        for row in rows:
            table.add_row(*row)
        tables.append(table)
    return tables
