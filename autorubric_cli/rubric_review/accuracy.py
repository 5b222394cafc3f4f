"""How a rubric's criteria agree with labels (`improve`; docs/guides/rubric-quality.md): per
criterion, on the items it is labelled for, the judges' outcome against the label.

An outcome is the criterion's final answer as the report reads it (`core.outcome`): the chosen
option's label, else the verdict; an abstention or an answer lost to errors counts as
CANNOT_ASSESS (right only where the label is CANNOT_ASSESS). Accuracy is the share of labelled
items whose outcome equals the label; Cohen's kappa is computed over the labels and outcomes
seen (unweighted, as scikit-learn's `cohen_kappa_score`). The held-out comparison pairs the two
rubrics' outcomes item by item; McNemar's exact test (statsmodels' `mcnemar(exact=True)`) takes
the items one rubric got right and the other wrong.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from autorubric_cli.core.outcome import outcome_label
from autorubric_cli.core.records import CriterionRecord, ItemRecord
from autorubric_cli.metrics.classification import cohen_kappa, confusion_matrix
from autorubric_cli.metrics.figures import value_or_none
from autorubric_cli.metrics.paired import mcnemar_exact_p

Labels = dict[str, dict[str, str]]
"""item id -> criterion name -> label."""


@dataclass
class Graded:
    """One labelled (item, criterion): the label, the outcome, and what the judges said."""

    item_id: str
    label: str
    outcome: str
    reasons: list[str]
    submission: str

    @property
    def right(self) -> bool:
        return self.outcome == self.label


@dataclass
class CriterionGrading:
    """A criterion's labelled items in one experiment."""

    name: str
    graded: list[Graded] = field(default_factory=list)

    @property
    def accuracy(self) -> float | None:
        return sum(g.right for g in self.graded) / len(self.graded) if self.graded else None

    @property
    def errors(self) -> list[Graded]:
        return [g for g in self.graded if not g.right]


def submission_text(record: ItemRecord) -> str:
    given = record.submission
    if isinstance(given, str):
        return given
    if isinstance(given, dict) and isinstance(given.get("output"), str):
        return given["output"]
    return "" if given is None else str(given)


def reasons_of(entry: CriterionRecord) -> list[str]:
    return [v.reason for v in entry.votes if v.reason and v.error is None]


def gradings(
    records: Iterable[ItemRecord], labels: Labels, names: list[str]
) -> dict[str, CriterionGrading]:
    """Per criterion of `names`, its labelled items in these records."""
    out = {name: CriterionGrading(name) for name in names}
    for record in records:
        wanted = labels.get(record.id, {})
        for entry in record.criteria:
            if entry.name in out and entry.name in wanted:
                out[entry.name].graded.append(
                    Graded(
                        record.id,
                        wanted[entry.name],
                        outcome_label(entry),
                        reasons_of(entry),
                        submission_text(record),
                    )
                )
    return out


def kappa(graded: list[Graded]) -> float | None:
    """Cohen's kappa of outcomes against labels (None when undefined)."""
    classes = sorted({g.label for g in graded} | {g.outcome for g in graded})
    code = {c: i for i, c in enumerate(classes)}
    truth = np.array([code[g.label] for g in graded], dtype=np.int64)
    pred = np.array([code[g.outcome] for g in graded], dtype=np.int64)
    return value_or_none(cohen_kappa(confusion_matrix(truth, pred, len(classes))))


@dataclass(frozen=True)
class Paired:
    """Two rubrics' outcomes on the same labelled items of one criterion."""

    n: int
    original: float | None
    final: float | None
    kappa_original: float | None
    kappa_final: float | None
    only_original_right: int
    only_final_right: int
    p_value: float | None


def paired(original: CriterionGrading, final: CriterionGrading) -> Paired:
    by_id = {g.item_id: g for g in final.graded}
    pairs = [(g, by_id[g.item_id]) for g in original.graded if g.item_id in by_id]
    first = [a for a, _ in pairs]
    second = [b for _, b in pairs]
    b = sum(x.right and not y.right for x, y in pairs)
    c = sum(y.right and not x.right for x, y in pairs)
    n = len(pairs)
    return Paired(
        n=n,
        original=sum(x.right for x in first) / n if n else None,
        final=sum(y.right for y in second) / n if n else None,
        kappa_original=kappa(first) if n else None,
        kappa_final=kappa(second) if n else None,
        only_original_right=b,
        only_final_right=c,
        p_value=value_or_none(mcnemar_exact_p(b, c)),
    )
