"""`autorubric validate` and `simulate`: judges against disagreeing human raters, and the
synthetic study that exercises it (Guerdan et al., ICML 2025); no judge calls."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from autorubric_cli.cli.guard import guarded


def validate(
    directory: Annotated[
        Path, typer.Argument(help="Experiment directory (from `run`, or `simulate`'s experiment/).")
    ],
    human: Annotated[
        Path | None,
        typer.Option(
            "--human",
            help='JSONL {"id", "human_ratings"} per line; replaces the ratings in the records.',
        ),
    ] = None,
    criterion: Annotated[
        list[str] | None,
        typer.Option("--criterion", help="Validate only this criterion (repeatable)."),
    ] = None,
    positive: Annotated[
        str | None,
        typer.Option(
            "--positive",
            help="Positive option(s) for decisions, comma-separated (default: value > 0.5; MET).",
        ),
    ] = None,
    tau: Annotated[
        float,
        typer.Option("--tau", help="Cutoff for decisions and hard response sets, in (0, 1]."),
    ] = 0.5,
    beta: Annotated[
        float,
        typer.Option("--beta", help="P(k in response set | chose k') for the --beta-pair (k, k')."),
    ] = 0.0,
    beta_pair: Annotated[
        str | None,
        typer.Option(
            "--beta-pair",
            metavar="K,K'",
            help="The two options beta links (binary default: MET,UNMET).",
        ),
    ] = None,
    beta_sweep: Annotated[
        str | None,
        typer.Option(
            "--beta-sweep",
            metavar="BETAS",
            help="Comma-separated betas to sweep, e.g. 0,0.1,0.2,0.3,0.4; or off.",
        ),
    ] = None,
    fc_matrix: Annotated[
        Path | None,
        typer.Option(
            "--fc-matrix",
            help="JSON mapping criterion -> chosen option -> list of "
            '{"set": [option labels], "p": probability}.',
        ),
    ] = None,
    format: Annotated[
        str, typer.Option("--format", "-f", metavar="FORMAT", help="One of: table, json.")
    ] = "table",
) -> None:
    """Validate judges against disagreeing human raters, without gold labels; no judge calls.

    Compares every judge (its repeated samples give a per-item rating distribution) and the
    ensemble with the humans' ratings under forced-choice and response-set definitions of
    performance (Guerdan et al., ICML 2025), marks the judge each definition selects, warns
    about rank inversions, and shows downstream decision consistency and prevalence bias.
    """

    from autorubric_cli.cli.validate_body import run_validate

    def body() -> int:
        return run_validate(
            directory,
            fmt=format,
            human=human,
            criteria=criterion or [],
            tau=tau,
            positive=positive,
            beta=beta,
            beta_pair=beta_pair,
            beta_sweep=beta_sweep,
            fc_matrix=fc_matrix,
        )

    guarded(body)


def simulate(
    out: Annotated[Path, typer.Argument(help="Output directory (new or empty).")],
    items: Annotated[int, typer.Option("--items", min=2, help="Items.")] = 200,
    options: Annotated[int, typer.Option("--options", min=2, max=6, help="Options q.")] = 3,
    raters: Annotated[int, typer.Option("--raters", min=1, help="Human raters per item.")] = 3,
    judges: Annotated[int, typer.Option("--judges", min=1, help="Simulated judges.")] = 4,
    samples: Annotated[int, typer.Option("--samples", min=1, help="Samples per judge.")] = 5,
    max_set_size: Annotated[
        int | None,
        typer.Option("--max-set-size", help="Largest response set (1: fully specified task)."),
    ] = None,
    error_rate: Annotated[float, typer.Option("--error-rate", help="Rater error ε.")] = 0.0,
    skew: Annotated[float, typer.Option("--skew", help="Error skew η (>0: towards A).")] = 0.0,
    human_gamma: Annotated[
        float, typer.Option("--human-gamma", help="Human selection effect γ (>0: favour A).")
    ] = 0.0,
    judge_gamma: Annotated[
        float, typer.Option("--judge-gamma", help="Judge selection effect γ.")
    ] = 0.0,
    judge_noise: Annotated[
        str,
        typer.Option(
            "--judge-noise",
            metavar="MIN,MAX",
            help="Range of the sd of the judges' perturbation, 0 <= MIN <= MAX.",
        ),
    ] = "0.02,0.3",
    concentration: Annotated[
        float, typer.Option("--concentration", help="Dirichlet concentration over sets.")
    ] = 1.0,
    human_elicitation: Annotated[
        str,
        typer.Option(
            "--human-elicitation",
            metavar="KIND",
            help="What the simulated humans report. One of: forced_choice, response_set.",
        ),
    ] = "forced_choice",
    judge_elicitation: Annotated[
        str,
        typer.Option(
            "--judge-elicitation",
            metavar="KIND",
            help="What the simulated judges report (both adds option_set). "
            "One of: forced_choice, both.",
        ),
    ] = "forced_choice",
    seed: Annotated[int, typer.Option("--seed", help="Random seed.")] = 0,
    format: Annotated[
        str, typer.Option("--format", "-f", metavar="FORMAT", help="One of: table, json.")
    ] = "table",
) -> None:
    """Write a synthetic study (Guerdan et al., section 6) that `validate` reads; no judge calls.

    Per item, response-set distributions are Dirichlet draws; human raters report sets with
    error ε (skew η) and pick a forced choice with selection effect γ; judges are perturbed
    copies of the human distribution with their own γ. Writes OUT/rubric.yaml,
    OUT/dataset.jsonl (human_ratings), OUT/experiment/ (a completed experiment with every
    judge's sampled votes: run `autorubric validate OUT/experiment`) and OUT/truth.json
    (each definition's population-level figures and the judge it truly selects).
    """

    from autorubric_cli.cli.validate_body import run_simulate

    def body() -> int:
        settings = {
            "n_items": items,
            "n_options": options,
            "raters": raters,
            "n_judges": judges,
            "samples": samples,
            "max_set_size": max_set_size,
            "error_rate": error_rate,
            "skew": skew,
            "human_gamma": human_gamma,
            "judge_gamma": judge_gamma,
            "judge_noise": judge_noise,
            "concentration": concentration,
            "seed": seed,
            "human_elicitation": human_elicitation,
            "judge_elicitation": judge_elicitation,
        }
        return run_simulate(out, fmt=format, options=settings)

    guarded(body)
