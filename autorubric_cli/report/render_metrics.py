"""Rich tables of the report's ``ground_truth`` and ``agreement`` sections."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table

from autorubric_cli.report.formats import interval, number
from autorubric_cli.report.metrics_section import ENSEMBLE
from autorubric_cli.report.models import CriterionMetrics, GroundTruthSection, ScoreMetrics

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


def has_figure(block: CriterionMetrics | ScoreMetrics, key: str) -> bool:
    """Whether the block's kind has this figure (its model declares the field)."""
    return key in type(block).model_fields


def _cell(block: CriterionMetrics | ScoreMetrics, key: str) -> str:
    """The figure with its interval; `n/a` when undefined or when the kind has no such figure."""
    text = number(getattr(block, key)) if has_figure(block, key) else number(None)
    ci = block.ci95.get(key)
    return f"{text} {interval(ci)}" if ci else text


def _overall_caption(section: GroundTruthSection) -> str:
    overall, score = section.overall, section.score
    return (
        f"micro acc {number(overall.micro_accuracy)} · "
        f"macro acc {number(overall.macro_accuracy)} · "
        f"mean kappa {number(overall.mean_kappa)} · "
        f"score r {_cell(score, 'pearson')}, RMSE {_cell(score, 'rmse')}, "
        f"bias {number(score.bias)} (n={number(score.n)})"
    )


def _ensemble_tables(section: GroundTruthSection) -> list[Table]:
    """Agreement with the labels (every criterion), then the ordinal figures (ordinal criteria
    only): two narrow tables rather than one too wide for a terminal."""
    title = f"Ground truth: ensemble (ca_mode={section.ca_mode}, 95% CI)"
    ordinal: list[CriterionMetrics] = [c for c in section.criteria if c.kind == "ordinal"]
    groups: list[tuple[str, tuple[tuple[str, str], ...], list[CriterionMetrics]]] = [
        (title, CRITERION_COLUMNS[:4], section.criteria),
        (f"{title}: ordinal", CRITERION_COLUMNS[4:], ordinal),
    ]
    tables = []
    for heading, columns, criteria in groups:
        if not criteria:
            continue
        table = Table(title=heading)
        table.add_column("Criterion", no_wrap=True)
        for header in ("Kind", "n", *(h for h, _ in columns)):
            table.add_column(header, justify="left" if header == "Kind" else "right")
        for c in criteria:
            cells = [_cell(c, key) for _, key in columns]
            table.add_row(c.name, c.kind, number(c.n), *cells)
        tables.append(table)
    if tables:
        tables[0].caption = _overall_caption(section)
    return tables


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
            number(overall.micro_accuracy),
            number(overall.macro_accuracy),
            number(overall.mean_kappa),
            _cell(score, "pearson"),
            _cell(score, "rmse"),
            number(score.bias),
            number(score.n),
        )
    return table


def ground_truth_tables(section: GroundTruthSection) -> list[Group | Table]:
    """The ensemble's per-criterion tables and the judges' comparison table."""
    return [Group(*_ensemble_tables(section)), _judges_table(section)]
