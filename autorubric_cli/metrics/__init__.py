"""Pure numeric metrics: judges against ground truth, and judges against each other.

numpy in, floats out, no I/O. A figure that has no value on the data (a kappa with no
chance disagreement, a correlation of a constant series, anything on zero items) is
``Undefined(reason)``, never 0. The rules for label codes and cannot-assess handling are
in ``codes``; the variable-rater forms of the agreement coefficients in ``agreement``;
the bootstrap in ``bootstrap``.
"""

from autorubric_cli.metrics.agreement import (
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    pairwise_cohen_kappa,
    percent_agreement,
    rating_counts,
    scotts_pi,
)
from autorubric_cli.metrics.bootstrap import (
    Statistic,
    accuracy_statistic,
    bootstrap_replicates,
    kappa_statistic,
    pearson_statistic,
    percentile_interval,
    rmse_statistic,
    score_statistics,
)
from autorubric_cli.metrics.classification import (
    accuracy,
    cohen_kappa,
    confusion_matrix,
    f1,
    false_negative_rate,
    false_positive_rate,
    matthews_corrcoef,
    per_class_scores,
    precision,
    recall,
)
from autorubric_cli.metrics.codes import (
    ABSTAIN,
    CA_MODES,
    MISSING,
    CaMode,
    Kind,
    Scale,
    build_scale,
    compared_pairs,
    rater_categories,
)
from autorubric_cli.metrics.comparison import (
    LabelComparison,
    adjacent_accuracy,
    compare_labels,
    label_statistics,
    summarize,
)
from autorubric_cli.metrics.correlation import (
    bias,
    kendall_tau_b,
    mae,
    pearson,
    rmse,
    score_figures,
    spearman,
)
from autorubric_cli.metrics.figures import Figure, Undefined, value_or_none

__all__ = [
    "ABSTAIN",
    "CA_MODES",
    "MISSING",
    "CaMode",
    "Figure",
    "Kind",
    "LabelComparison",
    "Scale",
    "Statistic",
    "Undefined",
    "accuracy",
    "accuracy_statistic",
    "adjacent_accuracy",
    "bias",
    "bootstrap_replicates",
    "build_scale",
    "cohen_kappa",
    "compare_labels",
    "compared_pairs",
    "confusion_matrix",
    "f1",
    "false_negative_rate",
    "false_positive_rate",
    "fleiss_kappa",
    "gwet_ac1",
    "kappa_statistic",
    "kendall_tau_b",
    "krippendorff_alpha",
    "label_statistics",
    "mae",
    "matthews_corrcoef",
    "pairwise_cohen_kappa",
    "pearson",
    "pearson_statistic",
    "per_class_scores",
    "percent_agreement",
    "percentile_interval",
    "precision",
    "rater_categories",
    "rating_counts",
    "recall",
    "rmse",
    "rmse_statistic",
    "score_figures",
    "score_statistics",
    "scotts_pi",
    "spearman",
    "summarize",
    "value_or_none",
]
