"""Few-shot examples from an experiment directory (`few_shot: {examples: DIR}`,
docs/reference/rubric-file.md): its items, labelled by their ground truth and by the human labels
imported into it (`label import`, human_labels.jsonl).

An item's submission comes from the experiment's dataset (its manifest names it, read with the
field mapping it was run with). A criterion's label is the dataset's `ground_truth` where it has
one, else the majority of the raters' labels (a tie gives none), as `report` reads them. Only
criteria of the rubric being run count, and each label must be one of that criterion's labels.
A rater's note on the label given becomes the example's reason (`include_reason`).
"""

from __future__ import annotations

from pathlib import Path

from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.human_labels import LABELS, Latest, majority_label, read_labels
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.grading.few_shot import LabelledExample, examples_path, reasons_of
from autorubric_cli.loading.dataset import canonical_label, iter_items
from autorubric_cli.loading.where import Where

KEY = "grader.few_shot.examples"


def labels_by_item(table: Latest) -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    """item id -> (criterion -> majority label, criterion -> a note given with that label)."""
    votes: dict[str, dict[str, list[tuple[str, str | None]]]] = {}
    for (_, item_id), line in sorted(table.items()):
        for name, label in line.labels.items():
            votes.setdefault(item_id, {}).setdefault(name, []).append((label, line.notes.get(name)))
    out = {}
    for item_id, by_name in votes.items():
        labels: dict[str, str] = {}
        notes: dict[str, str] = {}
        for name, given in by_name.items():
            majority = majority_label([g[0] for g in given])
            if majority is None:
                continue
            labels[name] = majority
            note = next((n for g, n in given if g == majority and n), None)
            if note is not None:
                notes[name] = note
        out[item_id] = (labels, notes)
    return out


def experiment_examples(rubric: Rubric, base_dir: Path | None) -> list[LabelledExample] | None:
    """The examples of `few_shot.examples` when it names an experiment directory; None when it
    names a file (the grader reads that) or there is no `few_shot`."""
    config = rubric.grader.few_shot
    if config is None or not examples_path(config, base_dir).is_dir():
        return None
    directory = examples_path(config, base_dir)
    try:
        experiment = open_experiment(directory)
    except InputError as exc:
        raise InputError(
            f"a directory of few-shot examples must be an experiment directory: {exc.message}",
            path=exc.path,
            line=exc.line,
            key=KEY,
        ) from None
    human = labels_by_item(read_labels(directory))
    dataset = Path(experiment.manifest.dataset.path)
    fields = experiment.manifest.dataset_fields
    examples = []
    for item in iter_items(dataset, experiment.rubric, fields):
        labels, notes = human.get(item.id, ({}, {}))
        merged = {**labels, **item.ground_truth}
        reasons = {**notes, **reasons_of(item, dataset)}
        valid = checked_labels(rubric, merged, Where(str(directory / LABELS), item.line))
        if valid:
            examples.append(LabelledExample(item.id, item.judged(), valid, reasons))
    if not examples:
        raise InputError(
            "the experiment has no labelled item to show as an example (import labels with "
            "`autorubric label import`)",
            path=str(directory),
            key=KEY,
        )
    return examples


def checked_labels(rubric: Rubric, labels: dict[str, str], where: Where) -> dict[str, str]:
    """The labels of the rubric's criteria, in its spelling; one it does not know is an error
    (its line: the item's in the experiment's dataset)."""
    names = {c.name for c in rubric.criteria}
    return {
        name: canonical_label(rubric.criterion(name), label, where, f"labels.{name}")
        for name, label in labels.items()
        if name in names
    }
