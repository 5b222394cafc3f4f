"""`autorubric improve RUBRIC DATA` (docs/guides/rubric-quality.md): criteria reworded against
labels, judged on items the loop never saw.

1. The labelled items (the dataset's `ground_truth`; with `--labels DIR`, also the human labels
   imported into that experiment, where the dataset has none) are split, seeded and stratified
   by label pattern (core/split.py), into `<stem>.train.<ext>` and `<stem>.test.<ext>`.
2. Round 0 grades the train part with the rubric as it is. Each round then asks the reviser for
   new wording of every criterion below `--target` accuracy (rubric_review/reviser.py), grades
   the train part with the candidates, and keeps a candidate only where its train accuracy is
   strictly higher. The loop stops after `--rounds`, when every criterion reaches the target,
   or when the reviser proposes nothing new.
3. The test part is graded with the original and with the final rubric, and each criterion's
   accuracy and kappa are compared item by item (rubric_review/accuracy.py).

Every grading is a stage (rubric_review/stages.py): resumable, cached, under one spend cap.
`rubric.improved.yaml` and `rubric.improved.diff` are written in the output directory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autorubric_cli.core.rubric import Rubric
from autorubric_cli.core.split import split_indices
from autorubric_cli.core.words import plural
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.few_shot_labels import checked_labels
from autorubric_cli.experiment.manifest import ITEMS, sha256_file, write_atomic
from autorubric_cli.experiment.opened import OpenedExperiment
from autorubric_cli.experiment.store import ReadIssues, iter_latest_records
from autorubric_cli.labels.overlay import experiment_overlay
from autorubric_cli.loading.dataset import iter_items
from autorubric_cli.loading.rubric_loader import load_rubric
from autorubric_cli.loading.where import Where
from autorubric_cli.loading.writers import part_path, write_parts
from autorubric_cli.rubric_review.accuracy import CriterionGrading, Labels, gradings
from autorubric_cli.rubric_review.meta import write_yaml
from autorubric_cli.rubric_review.revise_calls import paid_revisions
from autorubric_cli.rubric_review.split import check_share, pattern
from autorubric_cli.rubric_review.stages import (
    Engine,
    check_inputs,
    output_directory,
    scratch,
    total_bill,
)
from autorubric_cli.rubric_review.wording import rubric_data

RESULT = "improve.json"
IMPROVED = "rubric.improved.yaml"
DIFF = "rubric.improved.diff"


@dataclass
class ImproveRequest:
    rubric: Path
    data: Path
    rounds: int = 3
    test_share: float = 0.3
    seed: int = 0
    reviser: str | None = None
    target: float = 0.9
    labels: Path | None = None
    judges: list[str] = field(default_factory=list)
    out: Path | None = None
    max_cost: float | None = None
    cache: bool = True
    cache_dir: Path | None = None


@dataclass
class Split:
    """The labelled items and where each record of the dataset went (-1: unlabelled)."""

    labels: Labels
    assignment: list[int]
    train: Path
    test: Path


def improve_inputs(request: ImproveRequest) -> dict[str, Any]:
    labels = request.labels / "human_labels.jsonl" if request.labels else None
    return {
        "command": "improve",
        "rubric": sha256_file(request.rubric),
        "data": sha256_file(request.data),
        "labels": sha256_file(labels) if labels is not None and labels.is_file() else None,
        **{k: getattr(request, k) for k in ("rounds", "test_share", "seed", "reviser", "target")},
        "judges": request.judges,
    }


def read_labels(request: ImproveRequest, rubric: Rubric) -> list[tuple[str, dict[str, str]]]:
    """(id, labels) of every item in file order: its ground truth, then human labels."""
    overlay = None if request.labels is None else experiment_overlay(request.labels)
    source = str(request.labels or request.data)
    out = []
    for item in iter_items(request.data, rubric):
        human = {} if overlay is None else overlay.truth(item.id)
        merged = checked_labels(rubric, {**human, **item.ground_truth}, Where(source, item.line))
        out.append((item.id, merged))
    return out


def split_labelled(request: ImproveRequest, rubric: Rubric, folder: Path) -> Split:
    check_share(request.test_share)
    items = read_labels(request, rubric)
    labelled = [i for i, (_, labels) in enumerate(items) if labels]
    if len(labelled) < 4:
        raise InputError(
            f"only {plural(len(labelled), 'item')} {'carries' if len(labelled) == 1 else 'carry'} "
            "labels of the rubric's criteria; improve "
            "needs labelled items to split (ground_truth, or --labels DIR)",
            path=str(request.data),
        )
    keys = [pattern(items[i][1]) for i in labelled]
    test = {labelled[j] for j in split_indices(keys, request.test_share, request.seed)}
    assignment = [-1] * len(items)
    for index in labelled:
        assignment[index] = int(index in test)
    train, test_path = (part_path(request.data, part, folder) for part in ("train", "test"))
    return Split({i: labels for i, labels in items if labels}, assignment, train, test_path)


def write_split(request: ImproveRequest, split: Split) -> None:
    if not (split.train.exists() and split.test.exists()):
        write_parts(request.data, [split.train, split.test], split.assignment)


def measured(
    experiment: OpenedExperiment, labels: Labels, names: list[str]
) -> dict[str, CriterionGrading]:
    """The labelled outcomes of an experiment, per criterion of `names`."""
    path = experiment.directory / ITEMS
    records = iter_latest_records(path, ReadIssues(), experiment.rubric.criteria)
    return gradings(records, labels, names)


def engine_for(request: ImproveRequest, root: Path) -> Engine:
    command = f"autorubric improve {request.rubric} {request.data} ..."
    return Engine.of(request, root, command, lambda: paid_revisions(root))


def refuse_own_input(request: ImproveRequest, root: Path) -> None:
    for name in (IMPROVED, DIFF):
        if (root / name).resolve() == request.rubric.resolve():
            raise InputError(f"--out would write {name} over the rubric itself", path=str(root))


def prepared(request: ImproveRequest) -> tuple[Rubric, Path, Split]:
    rubric = load_rubric(request.rubric)
    root = output_directory("improve", request, rubric)
    refuse_own_input(request, root)
    split = split_labelled(request, rubric, root)
    return rubric, root, split


def write_result(root: Path, text: str) -> None:
    write_atomic(root / RESULT, text.encode() + b"\n")


def start(request: ImproveRequest) -> tuple[Rubric, Path, Split]:
    """Inputs checked, the output directory claimed and the split written."""
    rubric, root, split = prepared(request)
    check_inputs(root, improve_inputs(request))
    write_split(request, split)
    return rubric, root, split


def improve_bill(request: ImproveRequest) -> dict[str, Any]:
    """The `--dry-run` bill: round 0 on the train part and the original rubric on the test part
    (each priced as `run --dry-run` prices it), and what the rest may add at most: each round
    grades the train part again with the criteria it rewords (at most `rounds` times the train
    bill), the final rubric grades the test part again (at most its bill), and the reviser makes
    at most one call per criterion and round (not priced: its prompt holds errors not yet
    known)."""
    rubric, root, split = prepared(request)
    engine = engine_for(request, root)
    with scratch() as folder:
        train, test = (part_path(request.data, part, folder) for part in ("train", "test"))
        write_parts(request.data, [train, test], split.assignment)
        rubric_copy = folder / "rubric.yaml"
        write_yaml(rubric_copy, rubric_data(request.rubric))
        stages = {
            "train": engine.bill(rubric_copy, train, root / "rounds" / "0" / "train"),
            "test": engine.bill(rubric_copy, test, root / "test" / "original"),
        }
    bill = total_bill(stages)
    bill["at_most_more"] = {
        "train_gradings": request.rounds,
        "test_gradings": 1,
        "reviser_calls": request.rounds * len(rubric.criteria),
    }
    return bill
