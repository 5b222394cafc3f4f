"""Rich tables of the report's ``ground_truth`` and ``agreement`` sections."""

from __future__ import annotations

from rich.table import Table

from autorubric_cli.report.metrics_section import ENSEMBLE
from autorubric_cli.report.models import (
    AgreementSection,
    CriterionAgreement,
    CriterionMetrics,
    GroundTruthSection,
    ScoreMetrics,
)

NOT_APPLICABLE = "-"
CRITERION_COLUMNS = (
    ("Accuracy", "accuracy"),
    ("Kappa", "cohen_kappa"),
    ("F1", "f1"),
    ("MCC", "mcc"),
    ("Adjacent", "adjacent_accuracy"),
    ("QW kappa", "quadratic_kappa"),
    ("Spearman", "spearman"),
    ("RMSE", "rmse"),
)


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def has_figure(block: CriterionMetrics | ScoreMetrics, key: str) -> bool:
    """Whether the block's kind has this figure (its model declares the field)."""
    return key in type(block).model_fields


def _cell(block: CriterionMetrics | ScoreMetrics, key: str) -> str:
    """The figure with its interval; "n/a" when undefined, "-" when not applicable."""
    if not has_figure(block, key):
        return NOT_APPLICABLE
    text = _number(getattr(block, key))
    interval = block.ci95.get(key)
    return f"{text} [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else text


def _overall_caption(section: GroundTruthSection) -> str:
    overall, score = section.overall, section.score
    return (
        f"micro acc {_number(overall.micro_accuracy)} · "
        f"macro acc {_number(overall.macro_accuracy)} · "
        f"mean kappa {_number(overall.mean_kappa)} · "
        f"score r {_cell(score, 'pearson')}, RMSE {_cell(score, 'rmse')}, "
        f"bias {_number(score.bias)} (n={score.n})"
    )


def _ensemble_table(section: GroundTruthSection) -> Table:
    table = Table(title=f"Ground truth: ensemble (ca_mode={section.ca_mode}, 95% CI)")
    for header in ("Criterion", "Kind", "n", *(h for h, _ in CRITERION_COLUMNS)):
        table.add_column(header, justify="left" if header in ("Criterion", "Kind") else "right")
    for c in section.criteria:
        cells = [_cell(c, key) for _, key in CRITERION_COLUMNS]
        table.add_row(c.name, c.kind, str(c.n), *cells)
    table.caption = _overall_caption(section)
    return table


def _judges_table(section: GroundTruthSection) -> Table:
    table = Table(title="Ground truth: ensemble and judges (95% CI)")
    headers = ("Judge", "Micro acc", "Macro acc", "Mean kappa", "Score r", "Score RMSE")
    for header in (*headers, "Bias", "n"):
        table.add_column(header, justify="left" if header == "Judge" else "right")
    rows = {ENSEMBLE: section.ensemble(), **section.judges}
    for judge, block in rows.items():
        overall, score = block.overall, block.score
        table.add_row(
            judge,
            _number(overall.micro_accuracy),
            _number(overall.macro_accuracy),
            _number(overall.mean_kappa),
            _cell(score, "pearson"),
            _cell(score, "rmse"),
            _number(score.bias),
            str(score.n),
        )
    return table


def ground_truth_tables(section: GroundTruthSection) -> list[Table]:
    """The ensemble's per-criterion table and the judges' comparison table."""
    return [_ensemble_table(section), _judges_table(section)]


def _agreement_figures(c: CriterionAgreement) -> list[float | None]:
    return [c.percent_agreement, c.fleiss_kappa, c.scotts_pi, c.gwet_ac1, c.krippendorff_alpha]


def agreement_table(section: AgreementSection) -> Table:
    """Per-criterion inter-judge agreement."""
    table = Table(title="Agreement between judges")
    headers = ("Items", "Agreement", "Fleiss κ", "Scott's π", "Gwet AC1", "Kripp. α")
    for header in ("Criterion", "Kind", *headers, "Pairwise κ"):
        table.add_column(header, justify="right" if header in headers else "left")
    for c in section.criteria:
        pairs = "\n".join(f"{k} {_number(v)}" for k, v in c.pairwise_cohen_kappa.items())
        figures = [_number(v) for v in _agreement_figures(c)]
        table.add_row(c.name, c.kind, str(c.n_items), *figures, pairs or "n/a")
    table.caption = f"mean agreement {_number(section.mean_agreement)}"
    return table
