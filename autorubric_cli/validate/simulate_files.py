"""`autorubric simulate`: write a synthetic study that `validate` (and `report`) can read.

OUT/rubric.yaml      one nominal criterion `rating` with options A, B, ... and simulated judges
OUT/dataset.jsonl    items with `human_ratings` (forced choices, or response sets)
OUT/experiment/      a completed experiment directory: manifest.json, rubric.yaml, items.jsonl
                     with every judge's sampled votes (and `option_set` with --judge-elicitation
                     both); no judge is called
OUT/truth.json       the generating parameters, each judge's noise, and every definition's
                     figures at the population level (infinitely many ratings), with the judge
                     each definition truly selects
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Literal

import numpy as np
import orjson
import yaml

from autorubric_cli.core.evaluate import ScoringRules, evaluate_votes
from autorubric_cli.core.records import ItemRecord, Vote
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.manifest import (
    ITEMS,
    RUBRIC_COPY,
    Manifest,
    save_manifest,
)
from autorubric_cli.experiment.store import RecordWriter
from autorubric_cli.metrics.figures import value_or_none
from autorubric_cli.validate.performance import METRICS, Downstream, judge_performance
from autorubric_cli.validate.selection import best_by_metric, first_best
from autorubric_cli.validate.settings import default_positive
from autorubric_cli.validate.space import OptionSpace
from autorubric_cli.validate.synthetic import SimulationConfig, World, draw_ratings, simulate_world

CRITERION = "rating"
HumanElicitation = Literal["forced_choice", "response_set"]
JudgeElicitation = Literal["forced_choice", "both"]


@dataclasses.dataclass(frozen=True)
class SimulationOutput:
    directory: Path
    experiment: Path
    truth: dict[str, Any]


def option_labels(n_options: int) -> list[str]:
    return [chr(ord("A") + k) for k in range(n_options)]


def rubric_document(
    config: SimulationConfig, judge_elicitation: JudgeElicitation
) -> dict[str, Any]:
    """Option k is worth 1 - k/(q-1): A is the best option, the default positive one."""
    q = config.n_options
    criterion: dict[str, Any] = {
        "name": CRITERION,
        "requirement": "Synthetic rating task (autorubric simulate): which option fits?",
        "scale_type": "nominal",
        "options": [
            {"label": label, "value": 1.0 - k / (q - 1)} for k, label in enumerate(option_labels(q))
        ],
    }
    if judge_elicitation != "forced_choice":
        criterion["elicitation"] = judge_elicitation
    judges = [
        {"model": f"simulated/j{n}", "id": f"j{n}", "samples": config.samples}
        for n in range(1, config.n_judges + 1)
    ]
    return {
        "name": "simulated-validation",
        "criteria": [criterion],
        "grader": {"judges": judges, "seed": config.seed, "shuffle_options": False},
    }


def write_simulation(
    out: Path,
    config: SimulationConfig,
    human_elicitation: HumanElicitation = "forced_choice",
    judge_elicitation: JudgeElicitation = "forced_choice",
) -> SimulationOutput:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError("output directory exists and is not empty", path=str(out))
    rng = np.random.default_rng(config.seed)
    world = simulate_world(config, rng)
    experiment = out / "experiment"
    experiment.mkdir(parents=True)
    rubric_path, dataset_path = out / "rubric.yaml", out / "dataset.jsonl"
    document = rubric_document(config, judge_elicitation)
    rubric_path.write_text(yaml.safe_dump(document, sort_keys=False))
    (experiment / RUBRIC_COPY).write_text(rubric_path.read_text())
    rubric = Rubric.model_validate(document)
    humans = human_entries(world, config, human_elicitation, rng)
    write_dataset(dataset_path, humans)
    write_manifest(experiment, rubric, rubric_path, dataset_path, config)
    write_records(experiment / ITEMS, rubric, world, humans, judge_elicitation, rng)
    truth = population_truth(world, config)
    (out / "truth.json").write_bytes(orjson.dumps(truth, option=orjson.OPT_INDENT_2))
    return SimulationOutput(out, experiment, truth)


def human_entries(
    world: World, config: SimulationConfig, elicitation: HumanElicitation, rng: np.random.Generator
) -> list[list[str | list[str]]]:
    """Per item, one entry per rater: the forced choice, or the response set."""
    labels = option_labels(config.n_options)
    sets, choices = draw_ratings(world.human, config.raters, rng)
    if elicitation == "response_set":
        return [[[labels[k] for k in world.sets[s]] for s in row] for row in sets]
    return [[labels[k] for k in row] for row in choices]


def write_dataset(path: Path, humans: list[list[str | list[str]]]) -> None:
    with path.open("wb") as handle:
        for i, entries in enumerate(humans):
            line = {
                "id": item_id(i),
                "submission": f"synthetic item {i + 1}",
                "human_ratings": {CRITERION: entries},
            }
            handle.write(orjson.dumps(line) + b"\n")


def item_id(i: int) -> str:
    return f"s{i + 1:04d}"


def write_manifest(
    directory: Path, rubric: Rubric, rubric_path: Path, dataset_path: Path, config: SimulationConfig
) -> None:
    manifest = Manifest.begin(
        directory.parent.name,
        "completed",
        rubric_path,
        dataset_path,
        seed=config.seed,
        config=rubric.grader.model_dump(mode="json"),
        items_total=config.n_items,
        simulated=True,
        generator={"autorubric simulate": dataclasses.asdict(config)},
    )
    save_manifest(directory, manifest)


def write_records(
    path: Path,
    rubric: Rubric,
    world: World,
    humans: list[list[str | list[str]]],
    elicitation: JudgeElicitation,
    rng: np.random.Generator,
) -> None:
    """One completed record per item, with every judge's sampled votes."""
    rules = ScoringRules.from_rubric(rubric)
    samples = rubric.grader.judges[0].samples
    drawn = [draw_ratings(judge, samples, rng) for judge in world.judges]
    writer = RecordWriter(path)
    try:
        for i, entries in enumerate(humans):
            votes = [
                Vote(
                    judge=spec.judge_id,
                    sample=s,
                    option_index=int(choices[i, s]),
                    option_set=list(world.sets[sets[i, s]]) if elicitation == "both" else None,
                    reason="simulated (autorubric simulate)",
                    cost=0.0,
                )
                for spec, (sets, choices) in zip(rubric.grader.judges, drawn, strict=True)
                for s in range(samples)
            ]
            evaluation = evaluate_votes([votes], rules, word_count=0)
            writer.append(
                ItemRecord(
                    id=item_id(i),
                    index=i,
                    status="ok",
                    score=evaluation.score.score,
                    raw_score=evaluation.score.raw_score,
                    criteria=evaluation.criteria,
                    judge_scores=evaluation.judge_scores,
                    cost=0.0,
                    simulated=True,
                    human_ratings={CRITERION: entries},
                )
            )
    finally:
        writer.close()


def population_truth(world: World, config: SimulationConfig) -> dict[str, Any]:
    """Every definition at the population level: what infinitely many ratings would show."""
    human = world.human.distributions()
    labels = option_labels(config.n_options)
    values = tuple(1.0 - k / (config.n_options - 1) for k in range(config.n_options))
    positive = default_positive(OptionSpace(CRITERION, tuple(labels), values))
    downstream = Downstream(positive, 0.5)
    judges = [f"j{n}" for n in range(1, config.n_judges + 1)]
    figures = {
        j: judge_performance(human, pop.distributions(), downstream, config.n_options)
        for j, pop in zip(judges, world.judges, strict=True)
    }
    return {
        "config": dataclasses.asdict(config),
        "positive": [labels[k] for k in positive],
        "tau": 0.5,
        "judge_noise": dict(zip(judges, world.judge_noise, strict=True)),
        "judges": {j: {m: value_or_none(figures[j][m]) for m in METRICS} for j in judges},
        "best": first_best(best_by_metric(figures, judges)),
    }
