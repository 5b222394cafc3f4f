"""Human labels as the records' `ground_truth` and `human_ratings` (docs/guides/labels.md).

The dataset's own values come first: a label fills a criterion of an item only where the
record has none. Ground truth from several raters (`--ground-truth`):

- `majority` (default): the label most raters gave (CANNOT_ASSESS and NA options count as
  labels); a tie gives no ground truth for that criterion of that item. With one rater it is
  that rater's label.
- `rater:NAME`: that rater's labels only.

Human ratings: one entry per rater, the rater's response set when they gave one, else the
forced choice (the form `validate` reads, docs/reference/dataset-files.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autorubric_cli.core.records import ItemRecord
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.human_labels import Latest, majority_label, read_labels

MAJORITY = "majority"
HumanEntry = str | list[str]


@dataclass
class LabelOverlay:
    """What the labels add to each record, by item id."""

    ground_truth: dict[str, dict[str, str]] = field(default_factory=dict)
    human_ratings: dict[str, dict[str, list[HumanEntry]]] = field(default_factory=dict)
    raters: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    """item id -> rater -> criterion -> forced label (for inter-rater agreement)."""
    source: str = MAJORITY

    def apply(self, record: ItemRecord) -> ItemRecord:
        truth = self.ground_truth.get(record.id)
        ratings = self.human_ratings.get(record.id)
        if not truth and not ratings:
            return record
        return record.model_copy(
            update={
                "ground_truth": {**(truth or {}), **record.ground_truth},
                "human_ratings": {**(ratings or {}), **record.human_ratings},
            }
        )

    def truth(self, item_id: str) -> dict[str, str]:
        return self.ground_truth.get(item_id, {})


def check_source(source: str, raters: set[str]) -> str | None:
    """The rater named by `rater:NAME`, None for majority; an unknown choice is an InputError."""
    if source == MAJORITY:
        return None
    if source.startswith("rater:") and source[6:] in raters:
        return source[6:]
    known = ", ".join(sorted(f"rater:{r}" for r in raters)) or "no rater has labels yet"
    raise InputError(f"must be majority or rater:NAME ({known})", key="--ground-truth")


def build_overlay(table: Latest, source: str = MAJORITY) -> LabelOverlay:
    chosen = check_source(source, {rater for rater, _ in table})
    overlay = LabelOverlay(source=source)
    for (rater, item_id), line in sorted(table.items()):
        overlay.raters.setdefault(item_id, {})[rater] = dict(line.labels)
        ratings = overlay.human_ratings.setdefault(item_id, {})
        for name in {**line.labels, **line.response_sets}:
            entry: HumanEntry = line.response_sets.get(name) or line.labels[name]
            ratings.setdefault(name, []).append(entry)
    for item_id, by_rater in overlay.raters.items():
        votes: dict[str, list[str]] = {}
        for rater, labels in by_rater.items():
            if chosen is None or rater == chosen:
                for name, label in labels.items():
                    votes.setdefault(name, []).append(label)
        truth = {n: m for n, v in votes.items() if (m := majority_label(v)) is not None}
        if truth:
            overlay.ground_truth[item_id] = truth
    return overlay


def experiment_overlay(directory: Path, source: str = MAJORITY) -> LabelOverlay | None:
    """The experiment's human labels as an overlay; None when it has none."""
    table = read_labels(directory)
    if not table:
        check_source(source, set())
        return None
    return build_overlay(table, source)
