"""`autorubric validate` and `autorubric simulate`: command bodies and rendering."""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, get_args

import orjson
from rich import box
from rich.console import Console
from rich.table import Table

from autorubric_cli.cli.finish import wide_console
from autorubric_cli.core.json_model import to_json
from autorubric_cli.errors import InputError
from autorubric_cli.report.validate_columns import DOWNSTREAM_COLUMNS, FC_COLUMNS, RS_COLUMNS
from autorubric_cli.validate.performance import RANKED
from autorubric_cli.validate.result import CriterionValidation, ValidateResult
from autorubric_cli.validate.settings import ValidateSettings, split_labels, split_numbers
from autorubric_cli.validate.simulate_files import (
    HumanElicitation,
    JudgeElicitation,
    write_simulation,
)
from autorubric_cli.validate.synthetic import SimulationConfig

FORMATS = ("table", "json")
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


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise InputError(f"must be one of: {', '.join(FORMATS)}", key="--format")
    return fmt


def settings_from_flags(
    *,
    tau: float,
    positive: str | None,
    beta: float,
    beta_pair: str | None,
    beta_sweep: str | None,
    fc_matrix: dict[str, Any] | None,
    fc_matrix_source: str,
) -> ValidateSettings:
    pair = None if beta_pair is None else split_labels(beta_pair, "--beta-pair")
    if pair is not None and len(pair) != 2:
        raise InputError('needs exactly two labels, "k,k\'"', key="--beta-pair")
    sweep = None
    if beta_sweep is not None:
        off = beta_sweep.strip().lower() in ("", "off", "none")
        sweep = () if off else split_numbers(beta_sweep, "--beta-sweep")
    return ValidateSettings(
        tau=tau,
        positive=None if positive is None else split_labels(positive, "--positive"),
        beta=beta,
        beta_pair=None if pair is None else (pair[0], pair[1]),
        beta_sweep=sweep,
        fc_matrix=fc_matrix,
        fc_matrix_source=fc_matrix_source,
    )


def run_validate(
    directory: Path,
    *,
    fmt: str,
    human: Path | None,
    criteria: Sequence[str],
    tau: float,
    positive: str | None,
    beta: float,
    beta_pair: str | None,
    beta_sweep: str | None,
    fc_matrix: Path | None,
) -> int:
    from autorubric_cli.experiment.opened import open_experiment
    from autorubric_cli.labels.overlay import experiment_overlay
    from autorubric_cli.validate.loader import read_fc_matrix, validate_experiment

    check_format(fmt)
    matrix = None
    if fc_matrix is not None:
        matrix = read_fc_matrix(fc_matrix, open_experiment(directory).rubric)
    settings = settings_from_flags(
        tau=tau,
        positive=positive,
        beta=beta,
        beta_pair=beta_pair,
        beta_sweep=beta_sweep,
        fc_matrix=matrix,
        fc_matrix_source=str(fc_matrix or ""),
    )
    labels = experiment_overlay(directory)
    result = validate_experiment(
        directory,
        settings,
        human_path=human,
        criteria=criteria,
        overlay=None if labels is None else labels.apply,
    )
    if fmt == "json":
        sys.stdout.write(to_json(result).decode() + "\n")
    else:
        render_validation(result, wide_console())
    return 0


def fmt_value(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def marked(criterion: CriterionValidation, judge: str, metric: str) -> str:
    """The value, starred and bold when the judge is (tied) best for the metric."""
    text = fmt_value(getattr(criterion.judges[judge], metric))  # metric: a column's field name
    if judge in criterion.best_tied.get(metric, []):
        return f"[bold green]{text} *[/]"
    return text


def judge_table(criterion: CriterionValidation, title: str, columns: dict[str, str]) -> Table:
    table = Table(title=title, title_justify="left")
    width = max(len(judge) for judge in criterion.judges)
    table.add_column("judge", no_wrap=True, min_width=width)
    table.add_column("items", justify="right")
    for header in columns.values():
        table.add_column(header, justify="right")
    for judge, block in criterion.judges.items():
        row = [marked(criterion, judge, metric) for metric in columns]
        table.add_row(judge, str(block.n_items), *row)
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
        consistency = [fmt_value(row.decision_consistency[j]) for j in judges]
        table.add_row(f"{row.beta:g}", *picks, *consistency)
    return table


def header(criterion: CriterionValidation) -> str:
    per_item = criterion.ratings_per_item
    model = criterion.fc_model
    model_text = model.kind if model.kind != "beta" else f"beta={model.beta:g}"
    return (
        f"[bold]{criterion.name}[/] ({criterion.kind}): {criterion.n_items} items, "
        f"human ratings per item min {per_item.min} mean {per_item.mean:.1f}; "
        f"positive = {', '.join(criterion.positive)}; τ = {criterion.tau:g}; "
        f"forced-choice → response-set model: {model_text}"
    )


def render_validation(result: ValidateResult, console: Console) -> None:
    if result.simulated:
        console.print("[yellow]Judge ratings come from SIMULATED judges.[/]")
    for criterion in result.criteria:
        console.print(header(criterion))
        console.print(judge_table(criterion, "Forced-choice definitions", FC_COLUMNS))
        console.print(judge_table(criterion, "Response-set definitions", RS_COLUMNS))
        console.print(judge_table(criterion, "Downstream decisions", DOWNSTREAM_COLUMNS))
        console.print(rank_table(criterion))
        console.print(rank_legend(), highlight=False)
        if criterion.beta_sweep:
            console.print(sweep_table(criterion))
    console.print(
        "* best judge for the definition (lower is better for KL, CE, JSD, BCE, MSE; B closer to 0)"
    )
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False)


def run_simulate(out: Path, *, fmt: str, options: dict[str, Any]) -> int:
    check_format(fmt)
    config, human_elicitation, judge_elicitation = simulation_config(options)
    output = write_simulation(out, config, human_elicitation, judge_elicitation)
    if fmt == "json":
        body = {"directory": str(out), "experiment": str(output.experiment), **output.truth}
        sys.stdout.write(orjson.dumps(body, option=orjson.OPT_INDENT_2).decode() + "\n")
        return 0
    console = wide_console()
    console.print(f"Wrote {out}/rubric.yaml, {out}/dataset.jsonl, {out}/truth.json")
    console.print(f"and the experiment {output.experiment} (no judge was called).")
    picks = output.truth["best"]
    table = Table(title="Population-level best judge per definition (truth.json)")
    table.add_column("definition")
    table.add_column("best judge")
    for metric, judge in picks.items():
        table.add_row(metric, str(judge))
    console.print(table)
    console.print(f"Next: autorubric validate {output.experiment}")
    console.print("(add --beta-pair B,A to sweep beta = P(B in set | chose A))", highlight=False)
    return 0


def simulation_config(
    options: dict[str, Any],
) -> tuple[SimulationConfig, HumanElicitation, JudgeElicitation]:
    """The generator configuration from the command's flags, with ranges checked."""
    human, judge = options.pop("human_elicitation"), options.pop("judge_elicitation")
    if human not in get_args(HumanElicitation):
        raise InputError("must be forced_choice or response_set", key="--human-elicitation")
    if judge not in get_args(JudgeElicitation):
        raise InputError("must be forced_choice or both", key="--judge-elicitation")
    low, high = judge_noise(options.pop("judge_noise"))
    check_simulation_numbers(options)
    return SimulationConfig(judge_noise=(low, high), **options), human, judge


def judge_noise(text: str) -> tuple[float, float]:
    """'min,max' (or one number) for the sd of the judges' perturbation."""
    noise = split_numbers(text, "--judge-noise")
    if len(noise) == 1:
        noise = (noise[0], noise[0])
    if len(noise) != 2 or not all(math.isfinite(n) for n in noise):
        raise InputError("needs 'min,max' with 0 <= min <= max", key="--judge-noise")
    if not 0.0 <= noise[0] <= noise[1]:
        raise InputError("needs 'min,max' with 0 <= min <= max", key="--judge-noise")
    return noise[0], noise[1]


def check_simulation_numbers(options: dict[str, Any]) -> None:
    for name in ("error_rate", "skew", "human_gamma", "judge_gamma", "concentration"):
        if not math.isfinite(options[name]):
            raise InputError("must be a finite number", key="--" + name.replace("_", "-"))
    if not 0.0 <= options["error_rate"] <= 1.0:
        raise InputError("must be in [0, 1]", key="--error-rate")
    if options["concentration"] <= 0:
        raise InputError("must be > 0", key="--concentration")
    size = options["max_set_size"]
    if size is not None and not 1 <= size <= options["n_options"]:
        raise InputError("must be between 1 and --options", key="--max-set-size")
