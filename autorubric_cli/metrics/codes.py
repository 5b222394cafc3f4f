"""Integer label codes and the cannot-assess rule that turns codes into compared classes.

Codes: binary 0 = UNMET, 1 = MET; multi-choice the option index in the rubric's option
list; ``ABSTAIN`` (-2) for CANNOT_ASSESS or an NA option; ``MISSING`` (-1) for no label
(no ground truth for the item, or an errored vote). A code that points at an NA option
is read as ``ABSTAIN``.

Missing pairs are always dropped. Abstentions follow ``ca_mode``:

- ``exclude`` (default): drop every pair where either side abstains.
- ``as_unmet``: binary abstain -> UNMET; ordinal abstain -> the lowest-value non-NA
  option (equal values: the lowest index, as in docs/guides/rubrics.md); nominal has no "worst"
  option, so abstain becomes a category of its own (as in ``as_category``).
- ``as_category``: abstain is a class of its own (label ``CANNOT_ASSESS`` for binary,
  ``NA`` for multi-choice). It has no value and no rank, so order- and value-based
  metrics (adjacent accuracy, weighted kappas, Spearman, Kendall, RMSE, MAE) use only
  the pairs where both sides picked a scale option.

Compared classes are the non-NA options in rubric order (then the abstain class, if
any). Ordinal ranks order the non-NA options by (value, option index).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, Literal, get_args

import numpy as np

from autorubric_cli.metrics.ca_mode import CaMode, check_ca_mode
from autorubric_cli.metrics.figures import IntArray

ABSTAIN: Final = -2
MISSING: Final = -1
DROPPED: Final = -1
"""Class index for a code that takes no part in a comparison."""

Kind = Literal["binary", "ordinal", "nominal"]
KINDS: Final[tuple[str, ...]] = get_args(Kind)


@dataclass(frozen=True)
class Scale:
    """The classes one criterion's labels are compared in, under one ca_mode."""

    kind: Kind
    labels: tuple[str, ...]
    """Class labels in class-index order (the confusion-matrix axes)."""
    option_of_class: tuple[int, ...]
    """Rubric option index of each option class; the abstain class has none."""
    values: tuple[float | None, ...]
    """Option value per class; None for the abstain class."""
    ranks: tuple[int | None, ...]
    """Rank by (value, option index) per class; None for the abstain class."""
    abstain_class: int
    """Class an abstention becomes, or DROPPED."""
    n_codes: int
    """Number of rubric options (NA ones included): valid codes are below it."""

    @property
    def n_classes(self) -> int:
        return len(self.labels)

    @property
    def n_options(self) -> int:
        return len(self.option_of_class)


@dataclass(frozen=True)
class ClassPairs:
    """The compared (truth, prediction) pairs: item indices and class indices."""

    items: IntArray
    truth: IntArray
    pred: IntArray

    @property
    def n(self) -> int:
        return int(self.items.size)


def option_ranks(values: list[float]) -> list[int]:
    """Rank of each option when sorted by (value, index)."""
    order = sorted(range(len(values)), key=lambda i: (values[i], i))
    ranks = [0] * len(values)
    for rank, index in enumerate(order):
        ranks[index] = rank
    return ranks


def abstain_label(kind: Kind) -> str:
    """Label of the abstain class in a confusion matrix."""
    return "CANNOT_ASSESS" if kind == "binary" else "NA"


def build_scale(
    kind: Kind,
    option_labels: list[str],
    option_values: list[float | None],
    ca_mode: str = "exclude",
) -> Scale:
    """The compared classes for a criterion's options under ``ca_mode``."""
    mode = check_ca_mode(ca_mode)
    if kind not in KINDS:
        raise ValueError(f"unknown criterion kind {kind!r}")
    if len(option_labels) != len(option_values):
        raise ValueError("option_labels and option_values differ in length")
    options = [i for i, value in enumerate(option_values) if value is not None]
    values = [float(option_values[i]) for i in options]  # type: ignore[arg-type]
    if len(options) < 2:
        raise ValueError("a criterion needs at least two non-NA options")
    labels = [option_labels[i] for i in options]
    ranks: list[int | None] = list(option_ranks(values))
    class_values: list[float | None] = list(values)
    abstain_class = _abstain_class(kind, mode, ranks)
    if abstain_class == len(options):
        labels.append(abstain_label(kind))
        ranks.append(None)
        class_values.append(None)
    return Scale(
        kind=kind,
        labels=tuple(labels),
        option_of_class=tuple(options),
        values=tuple(class_values),
        ranks=tuple(ranks),
        abstain_class=abstain_class,
        n_codes=len(option_values),
    )


def _abstain_class(kind: Kind, mode: CaMode, ranks: list[int | None]) -> int:
    """Where abstentions go: dropped, the lowest-ranked option, or a class of their own."""
    if mode == "exclude":
        return DROPPED
    if mode == "as_unmet" and kind != "nominal":
        return ranks.index(0)
    return len(ranks)


def to_classes(codes: IntArray, scale: Scale) -> IntArray:
    """Class index per code; DROPPED for missing codes and (under exclude) abstentions."""
    codes = np.asarray(codes, dtype=np.int64)
    if codes.size and (int(codes.min()) < ABSTAIN or int(codes.max()) >= scale.n_codes):
        raise ValueError(f"label codes must lie in [{ABSTAIN}, {scale.n_codes - 1}]")
    lookup = np.full(scale.n_codes, scale.abstain_class, dtype=np.int64)  # NA options abstain
    lookup[list(scale.option_of_class)] = np.arange(scale.n_options)
    classes = np.full(codes.shape, DROPPED, dtype=np.int64)
    labelled = codes >= 0
    classes[labelled] = lookup[codes[labelled]]
    classes[codes == ABSTAIN] = scale.abstain_class
    return classes


def compared_pairs(truth: IntArray, pred: IntArray, scale: Scale) -> ClassPairs:
    """The items where both sides give a class, with those classes."""
    truth_cls = to_classes(truth, scale)
    pred_cls = to_classes(pred, scale)
    if truth_cls.shape != pred_cls.shape:
        raise ValueError("truth and prediction must have the same shape")
    items = np.flatnonzero((truth_cls != DROPPED) & (pred_cls != DROPPED))
    return ClassPairs(items, truth_cls[items], pred_cls[items])


def ranked_pairs(pairs: ClassPairs, scale: Scale) -> ClassPairs:
    """The pairs where both classes have a rank, with classes replaced by ranks."""
    rank_of = np.array([-1 if r is None else r for r in scale.ranks], dtype=np.int64)
    truth, pred = rank_of[pairs.truth], rank_of[pairs.pred]
    keep = (truth >= 0) & (pred >= 0)
    return ClassPairs(pairs.items[keep], truth[keep], pred[keep])


def rater_categories(votes: IntArray, scale: Scale) -> IntArray:
    """Votes as agreement categories: class index, or rank for ordinal; -1 when missing.

    Abstentions and errored votes are missing ratings, whatever ``scale``'s ca_mode.
    """
    classes = to_classes(votes, replace(scale, abstain_class=DROPPED))
    if scale.kind != "ordinal":
        return classes
    rank_of = np.array([-1 if r is None else r for r in scale.ranks] + [DROPPED], dtype=np.int64)
    return rank_of[classes]  # DROPPED (-1) picks the trailing -1
