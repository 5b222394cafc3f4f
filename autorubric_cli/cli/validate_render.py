"""The tables of `autorubric validate`: every definition's figures per judge, the best marked."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table

from autorubric_cli.core.words import plural
from autorubric_cli.report.fit import build_table, print_fitted
from autorubric_cli.report.formats import SIMULATED_NOTE, number
from autorubric_cli.report.validate_columns import DOWNSTREAM_COLUMNS, FC_COLUMNS, RS_COLUMNS
from autorubric_cli.validate.performance import RANKED
from autorubric_cli.validate.result import CriterionValidation, ValidateResult

CODES = {
    "hit_rate": "HR",
    "cohen_kappa": "κC",
    "fleiss_kappa": "κF",
    "krippendorff_alpha": "α",
    "scotts_pi": "π",
    "kl_human_judge": "KLhj",
    "kl_judge_human": "KLjh",
    "ce_human_judge": "CEhj",
    "ce_judge_human": "CEjh",
    "jsd": "JSD",
    "coverage": "COV",
    "precision": "PRE",
    "recall": "REC",
    "bce": "BCE",
    "mse": "MSE",
    "decision_consistency": "C",
    "prevalence_bias": "|B|",
    "decision_consistency_fc": "Cfc",
    "prevalence_bias_fc": "|Bfc|",
}
SWEEP_PICKS = ("hit_rate", "jsd", "coverage", "mse", "decision_consistency")


def marked(criterion: CriterionValidation, judge: str, metric: str) -> str:
    """The value, starred and bold when the judge is (tied) best for the metric."""
    text = number(getattr(criterion.judges[judge], metric))  # metric: a column's field name
    if judge in criterion.best_tied.get(metric, []):
        return f"[bold green]{text} *[/]"
    return text


JUDGE_TABLES = [
    ("Forced-choice definitions", FC_COLUMNS),
    ("Response-set definitions", RS_COLUMNS),
    ("Downstream decisions", DOWNSTREAM_COLUMNS),
]


def judge_table(criterion: CriterionValidation, title: str, columns: dict[str, str]) -> Table:
    rows = [
        [judge, str(block.n_items), *(marked(criterion, judge, metric) for metric in columns)]
        for judge, block in criterion.judges.items()
    ]
    headers = ["judge", "items", *columns.values()]
    table = build_table(title, headers, rows, right=tuple(headers[1:]))
    table.title_justify = "left"
    return table


def rank_table(criterion: CriterionValidation) -> Table:
    """Kendall's tau-b between definitions across judges (a lower triangle)."""
    table = Table(
        title="Rank correlation between definitions (Kendall τ-b across judges)",
        title_justify="left",
        box=box.SIMPLE,
        padding=(0, 0, 0, 1),
    )
    table.add_column("", no_wrap=True)
    for metric in RANKED[:-1]:
        table.add_column(CODES[metric], justify="right", no_wrap=True, min_width=5)
    correlations = criterion.rank_correlation
    for row_index, row in enumerate(RANKED[1:], start=1):
        cells = []
        for col in RANKED[:-1][:row_index]:
            tau = correlations.get(f"{col}|{row}")
            cells.append("n/a" if tau is None else f"{tau:+.2f}")
        table.add_row(CODES[row], *cells)
    return table


def rank_legend() -> str:
    return "  ".join(f"{CODES[m]}={m}" for m in RANKED)


def sweep_table(criterion: CriterionValidation) -> Table:
    assert criterion.beta_pair is not None  # a sweep needs the pair
    k, chosen = criterion.beta_pair
    title = f"β sweep: β = P({k} in set | chose {chosen}); selected judge and consistency C"
    table = Table(title=title, title_justify="left")
    table.add_column("β", justify="right")
    for metric in SWEEP_PICKS:
        table.add_column(f"best by {CODES[metric]}")
    judges = list(criterion.judges)
    for judge in judges:
        table.add_column(f"C {judge}", justify="right")
    for row in criterion.beta_sweep:
        picks = [str(row.best[m] or "n/a") for m in SWEEP_PICKS]
        consistency = [number(row.decision_consistency[j]) for j in judges]
        table.add_row(f"{row.beta:g}", *picks, *consistency)
    return table


def header(criterion: CriterionValidation) -> str:
    per_item = criterion.ratings_per_item
    model = criterion.fc_model
    model_text = model.kind if model.kind != "beta" else f"beta={model.beta:g}"
    return (
        f"[bold]{criterion.name}[/] ({criterion.kind}): {plural(criterion.n_items, 'item')}, "
        f"human ratings per item min {per_item.min} mean {per_item.mean:.1f}; "
        f"positive = {', '.join(criterion.positive)}; τ = {criterion.tau:g}; "
        f"forced-choice → response-set model: {model_text}"
    )


def render_validation(result: ValidateResult, console: Console) -> None:
    if result.simulated:
        console.print(f"[yellow]{SIMULATED_NOTE}[/]", highlight=False)
    for criterion in result.criteria:
        console.print(header(criterion))
        for title, columns in JUDGE_TABLES:
            print_fitted(console, judge_table(criterion, title, columns))
        print_fitted(console, rank_table(criterion))
        console.print(rank_legend(), highlight=False)
        if criterion.beta_sweep:
            print_fitted(console, sweep_table(criterion))
    console.print(
        "* best judge for the definition (lower is better for KL, CE, JSD, BCE, MSE; B closer to 0)"
    )
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False)
