"""Few-shot examples from an experiment directory (`few_shot: {examples: DIR}`,
docs/reference/rubric-file.md): its items, labelled by their ground truth and by the human labels
imported into it (`label import`, human_labels.jsonl).

An item's submission comes from its record (records keep what was graded), or from the
experiment's dataset for a record written before they did. A criterion's label is the item's
`ground_truth` where it has one, else the majority of the raters' labels (a tie gives none),
as `report` reads them. Only criteria of the rubric being run count, and each label must be one
of that criterion's labels. A rater's note on the label given becomes the example's reason
(`include_reason`).
"""

from __future__ import annotations

from pathlib import Path

from autorubric_cli.core.items import Item
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.human_labels import LABELS, Latest, majority_label, read_labels
from autorubric_cli.experiment.manifest import ITEMS
from autorubric_cli.experiment.opened import OpenedExperiment, open_experiment
from autorubric_cli.experiment.store import ReadIssues, iter_latest_records
from autorubric_cli.grading.few_shot import LabelledExample, examples_path, reasons_of
from autorubric_cli.loading.dataset import canonical_label, iter_items
from autorubric_cli.loading.submission import parse_submission
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
    experiment = opened(directory)
    human = labels_by_item(read_labels(directory))
    examples = []
    for item in graded_items(experiment):
        labels, notes = human.get(item.id, ({}, {}))
        merged = {**labels, **item.ground_truth}
        reasons = {**notes, **reasons_of(item, directory / ITEMS)}
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


def opened(directory: Path) -> OpenedExperiment:
    try:
        return open_experiment(directory)
    except InputError as exc:
        raise InputError(
            f"a directory of few-shot examples must be an experiment directory: {exc.message}",
            path=exc.path,
            line=exc.line,
            key=KEY,
        ) from None


def graded_items(experiment: OpenedExperiment) -> list[Item]:
    """The experiment's graded items, from their records (which keep the submission); from
    its dataset when a record predates that."""
    path = experiment.directory / ITEMS
    records = list(iter_latest_records(path, ReadIssues(), experiment.rubric.criteria))
    if any(r.submission is None for r in records):
        graded = {r.id for r in records}
        dataset = Path(experiment.manifest.dataset.path)
        fields = experiment.manifest.dataset_fields
        return [i for i in iter_items(dataset, experiment.rubric, fields) if i.id in graded]
    final_turn = experiment.rubric.grades_final_turn()
    return [
        Item(
            id=r.id,
            index=r.index,
            line=r.index + 1,
            submission=parse_submission(r.submission, Where(str(path), r.index + 1), final_turn),
            ground_truth=r.ground_truth,
            metadata=r.metadata,
        )
        for r in records
    ]


def checked_labels(rubric: Rubric, labels: dict[str, str], where: Where) -> dict[str, str]:
    """The labels of the rubric's criteria, in its spelling; one it does not know is an error
    (its line: the item's in the experiment's dataset)."""
    names = {c.name for c in rubric.criteria}
    return {
        name: canonical_label(rubric.criterion(name), label, where, f"labels.{name}")
        for name, label in labels.items()
        if name in names
    }
