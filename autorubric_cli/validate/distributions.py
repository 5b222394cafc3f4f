"""Per-item rating distributions and their four aggregations (Guerdan et al., §3-4).

For item i with ratings r (human raters, or one judge's repeated samples):

- forced-choice distribution O_i: the share of ratings choosing each option. A rating given
  only as a response set s counts 1/|s| for each of its options (a rater picks uniformly among
  the options they find reasonable, the paper's beta = 0 selection model).
- multi-label vector Omega_i (= Lambda theta_i): the probability that a rating includes option
  k. A response set counts its own indicator; a forced choice k' counts the row k' of the
  forced-choice -> response-set model (``FcModel.inclusion``). Omega need not sum to one.

Aggregations: hard = one-hot of the mode of O_i (ties: the lowest option index, as numpy's
argmax in the paper's code); soft = O_i; hard response set = 1[Omega_i >= tau]; soft response
set = Omega_i. Items with no rating are NaN rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from autorubric_cli.metrics.figures import BoolArray, FloatArray, IntArray
from autorubric_cli.validate.fc_model import FcModel
from autorubric_cli.validate.space import Rating


@dataclass(frozen=True)
class RaterDistributions:
    """O (forced) and Omega (multilabel), (items, q) each; NaN rows where nobody rated."""

    forced: FloatArray
    multilabel: FloatArray
    counts: IntArray

    @property
    def present(self) -> BoolArray:
        return self.counts > 0


def forced_choice_distribution(ratings: Sequence[Rating], q: int) -> FloatArray:
    """O_i: one-hot per forced choice, uniform over the set for a set-only rating."""
    total = np.zeros(q)
    for rating in ratings:
        if rating.choice is not None:
            total[rating.choice] += 1.0
        elif rating.members:
            total[sorted(rating.members)] += 1.0 / len(rating.members)
    return total / len(ratings) if ratings else np.full(q, np.nan)


def multilabel_vector(ratings: Sequence[Rating], model: FcModel) -> FloatArray:
    """Omega_i: the set's indicator, or the model's inclusion row for a forced choice."""
    q = model.inclusion.shape[0]
    total = np.zeros(q)
    for rating in ratings:
        if rating.members:
            total[sorted(rating.members)] += 1.0
        elif rating.choice is not None:
            total += model.inclusion[rating.choice]
    return total / len(ratings) if ratings else np.full(q, np.nan)


def rater_distributions(
    per_item: Sequence[Sequence[Rating]], q: int, model: FcModel
) -> RaterDistributions:
    """O and Omega for every item (a list of ratings per item, possibly empty)."""
    n = len(per_item)
    forced = np.full((n, q), np.nan)
    multilabel = np.full((n, q), np.nan)
    for i, ratings in enumerate(per_item):
        if ratings:
            forced[i] = forced_choice_distribution(ratings, q)
            multilabel[i] = multilabel_vector(ratings, model)
    counts = np.array([len(r) for r in per_item], dtype=np.int64)
    return RaterDistributions(forced, multilabel, counts)


def hard_labels(distribution: FloatArray) -> IntArray:
    """Index of the mode of each row; ties go to the lowest option index."""
    return np.argmax(distribution, axis=1).astype(np.int64)


def hard_response_sets(multilabel: FloatArray, tau: float) -> BoolArray:
    """1[Omega_ik >= tau]: the options at least a share tau of raters include."""
    return np.asarray(multilabel >= tau, dtype=np.bool_)


def rows(distributions: RaterDistributions, mask: BoolArray) -> RaterDistributions:
    """The items selected by ``mask``."""
    return RaterDistributions(
        distributions.forced[mask], distributions.multilabel[mask], distributions.counts[mask]
    )
