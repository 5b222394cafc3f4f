"""`autorubric validate` and `autorubric simulate`: flags to settings, run, print."""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, get_args

import orjson
from rich.table import Table

from autorubric_cli.cli.finish import wide_console
from autorubric_cli.cli.validate_render import render_validation
from autorubric_cli.core.json_model import to_json
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.labels.overlay import experiment_overlay
from autorubric_cli.validate.loader import read_fc_matrix, validate_experiment
from autorubric_cli.validate.settings import ValidateSettings, split_labels, split_numbers
from autorubric_cli.validate.simulate_files import (
    HumanElicitation,
    JudgeElicitation,
    write_simulation,
)
from autorubric_cli.validate.synthetic import SimulationConfig

FORMATS = ("table", "json")


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
    check_format(fmt)
    matrix = None
    if fc_matrix is not None:
        rubric = open_experiment(directory).rubric
        matrix = read_fc_matrix(fc_matrix, rubric)
    settings = settings_from_flags(
        tau=tau,
        positive=positive,
        beta=beta,
        beta_pair=beta_pair,
        beta_sweep=beta_sweep,
        fc_matrix=matrix,
        fc_matrix_source=str(fc_matrix or ""),
    )
    overlay = experiment_overlay(directory)
    result = validate_experiment(
        directory,
        settings,
        human_path=human,
        criteria=criteria,
        overlay=None if overlay is None else overlay.apply,
    )
    if fmt == "json":
        sys.stdout.write(to_json(result).decode() + "\n")
    else:
        render_validation(result, wide_console())
    return 0


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
