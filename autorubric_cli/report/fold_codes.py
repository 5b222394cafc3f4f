"""Label codes the fold keeps per criterion (`CriterionTally`), and the rules that turn outcomes,
votes and ground-truth labels into the codes of `autorubric_cli.metrics.codes`."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from autorubric_cli.core.records import CriterionRecord, CriterionVerdict, Vote, add_counts
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.metrics.codes import ABSTAIN, MISSING
from autorubric_cli.report.metrics_section import CriterionLabels

MET, UNMET = CriterionVerdict.MET, CriterionVerdict.UNMET  # enum member lookups cost per vote


@dataclass
class CriterionTally:
    criterion: Criterion
    distribution: dict[str, int] = field(default_factory=dict)
    values: array = field(default_factory=lambda: array("d"))  # outcome values, abstentions out
    met: int = 0
    abstained: int = 0
    agreements: array = field(default_factory=lambda: array("d"))
    truth: array = field(default_factory=lambda: array("b"))
    # human labels only (docs/guides/labels.md)
    label_truth: array = field(default_factory=lambda: array("b"))
    ensemble: array = field(default_factory=lambda: array("b"))
    judges: dict[str, array] = field(default_factory=dict)

    @classmethod
    def new(cls, criterion: Criterion, judge_ids: Sequence[str]) -> CriterionTally:
        return cls(criterion, judges={j: array("b") for j in judge_ids})

    def subset(self, criterion: Criterion, positions: array) -> CriterionTally:
        """The label codes at `positions` (pairs of the pooled tally), as a tally of their own."""
        at = np.frombuffer(positions, dtype=np.int64)

        def picked(codes: array) -> array:
            return array("b", np.frombuffer(codes, dtype=np.int8)[at].tobytes())

        return CriterionTally(
            criterion,
            truth=picked(self.truth),
            label_truth=picked(self.label_truth) if len(self.label_truth) else array("b"),
            ensemble=picked(self.ensemble),
            judges={j: picked(codes) for j, codes in self.judges.items()},
        )

    def code_series(self) -> list[array]:
        """The per-item (or per-pair) label code series, aligned with each other."""
        series = [self.truth, self.ensemble, *self.judges.values()]
        return series + [self.label_truth] if len(self.label_truth) else series

    def labels(self, human_only: bool = False) -> CriterionLabels:
        """Truth and predictions; `human_only`: the truth from the human labels alone
        (docs/guides/labels.md), whatever the dataset holds."""
        criterion = self.criterion
        judges = [code_view(a) for a in self.judges.values()]
        return CriterionLabels(
            name=criterion.name,
            kind=criterion.kind,
            option_labels=option_labels(criterion),
            option_values=option_values(criterion),
            truth=code_view(self.label_truth if human_only else self.truth),
            predictions={
                "ensemble": code_view(self.ensemble),
                **{j: code_view(a) for j, a in self.judges.items()},
            },
            judge_votes=np.column_stack(judges)
            if judges
            else np.empty((len(self.truth), 0), dtype=np.int8),
            judge_ids=list(self.judges),
        )


def code_view(values: array) -> np.ndarray:
    """Label codes as a read-only int8 view (the metrics widen them to int64 where they
    compute: `metrics.codes.to_classes`), not a copy eight times their size."""
    return np.frombuffer(values, dtype=np.int8)


def int64(value: int) -> int:
    """A hand-edited record's index clamped to int64 (it only orders the items)."""
    return min(max(value, -(2**63)), 2**63 - 1)


def option_labels(criterion: Criterion) -> list[str]:
    if criterion.options is None:
        return ["UNMET", "MET"]
    return [o.label for o in criterion.options]


def option_values(criterion: Criterion) -> list[float | None]:
    if criterion.options is None:
        return [0.0, 1.0]
    return [None if o.na else o.value for o in criterion.options]


def record_code(record: CriterionRecord) -> int:
    if record.option is not None:
        return ABSTAIN if record.option.na else record.option.index
    if record.verdict == MET:
        return 1
    if record.verdict == UNMET:
        return 0
    return ABSTAIN


def label_code(criterion: Criterion, label: str | None) -> int:
    """Ground-truth label → metrics code (MISSING when the item has no label)."""
    if label is None:
        return MISSING
    if criterion.options is None:
        return {"MET": 1, "UNMET": 0}.get(label, ABSTAIN)
    index = [o.label for o in criterion.options].index(label)
    return ABSTAIN if criterion.options[index].na else index


def label_value(criterion: Criterion, label: str) -> float | None:
    if criterion.options is None:
        return {"MET": 1.0, "UNMET": 0.0}.get(label)
    option = next(o for o in criterion.options if o.label == label)
    return None if option.na else option.value


def judge_code(criterion: Criterion, own: Sequence[Vote], kept: Vote | None) -> int:
    """One judge's sample-reduced vote → code; MISSING when every sample errored or none exist."""
    if kept is not None:
        if criterion.options is None:
            return 1 if kept.verdict == MET else 0
        assert kept.option_index is not None  # a kept multi-choice vote names its option
        return kept.option_index
    if not own or all(v.error is not None for v in own):
        return MISSING
    return ABSTAIN


def merge_criterion_tallies(first: CriterionTally, later: CriterionTally) -> None:
    add_counts(first.distribution, later.distribution)
    first.met += later.met
    first.abstained += later.abstained
    for name in ("values", "agreements", "truth", "label_truth", "ensemble"):
        getattr(first, name).extend(getattr(later, name))
    for judge, codes in later.judges.items():
        first.judges[judge].extend(codes)
