"""The forced-choice -> response-set model: which options a rater who chose k' finds reasonable.

Guerdan et al. write it as F' = P(response set s | forced choice k'). Everything the metrics
need from it is the inclusion matrix ``inclusion[k', k] = P(k in s | chose k') =
sum over s containing k of F'[k', s]``, because the multi-label vector
Omega = Lambda theta = Lambda F'^T O = inclusion^T O.

- identity (beta = 0, the default): the forced choice is the set.
- the paper's one-parameter form: beta = P(option k is in the set | chose k') for one named
  pair (k, k'); every other choice is its own set.
- a user matrix: for each chosen option, a distribution over response sets that contain it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from autorubric_cli.errors import AutorubricError
from autorubric_cli.metrics.figures import FloatArray
from autorubric_cli.validate.space import OptionSpace

ROW_TOLERANCE = 1e-6


class FcModelError(AutorubricError, ValueError):
    """A bad user matrix: the message and the JSON key path it concerns."""

    def __init__(self, message: str, key: str) -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class FcModel:
    """inclusion[k', k] = P(option k is in the rater's response set | the rater chose k')."""

    inclusion: FloatArray
    kind: str
    beta: float | None = None
    pair: tuple[int, int] | None = None

    def describe(self, space: OptionSpace) -> dict[str, Any]:
        pair = None if self.pair is None else [space.labels[i] for i in self.pair]
        return {"kind": self.kind, "beta": self.beta, "pair": pair}


def identity_model(q: int) -> FcModel:
    """The forced choice is the whole response set (beta = 0)."""
    return FcModel(np.eye(q), "identity", beta=0.0)


def beta_model(q: int, beta: float, pair: tuple[int, int]) -> FcModel:
    """beta = P(k in set | chose k') for pair = (k, k'); the chosen option is always in the set."""
    if not (math.isfinite(beta) and 0.0 <= beta <= 1.0):
        raise ValueError("beta must be a number in [0, 1]")
    k, chosen = pair
    if k == chosen:
        raise ValueError("the beta pair must name two different options")
    inclusion = np.eye(q)
    inclusion[chosen, k] = beta
    return FcModel(inclusion, "beta", beta=beta, pair=pair)


def matrix_model(space: OptionSpace, rows: Any, key: str) -> FcModel:
    """From ``{"<chosen label>": [{"set": [labels], "p": prob}, ...]}``; unlisted rows: identity."""
    if not isinstance(rows, dict):
        raise FcModelError("must be an object: chosen option -> list of {set, p}", key)
    inclusion = np.eye(space.q)
    for chosen_label, entries in rows.items():
        where = f"{key}.{chosen_label}"
        chosen = _label_index(space, chosen_label, where)
        inclusion[chosen] = _inclusion_row(space, chosen, entries, where)
    return FcModel(inclusion, "matrix")


def _label_index(space: OptionSpace, label: Any, key: str) -> int:
    index = space.find(label) if isinstance(label, str) else None
    if index is None:
        raise FcModelError(
            f"label {label!r} is not an option of {space.criterion!r} "
            f"(one of: {', '.join(space.labels)})",
            key,
        )
    return index


def _inclusion_row(space: OptionSpace, chosen: int, entries: Any, key: str) -> FloatArray:
    """sum_s P(s | chosen) 1[k in s], after checking that the P(s | chosen) form a distribution."""
    if not isinstance(entries, list) or not entries:
        raise FcModelError("must be a non-empty list of {set, p}", key)
    row = np.zeros(space.q)
    total = 0.0
    for position, entry in enumerate(entries):
        where = f"{key}[{position}]"
        members, p = _set_entry(space, entry, where)
        if chosen not in members:
            raise FcModelError("a response set must contain the chosen option", f"{where}.set")
        row[sorted(members)] += p
        total += p
    if abs(total - 1.0) > ROW_TOLERANCE:
        raise FcModelError(f"probabilities sum to {total:.6g}, not 1", key)
    return row


def _set_entry(space: OptionSpace, entry: Any, key: str) -> tuple[set[int], float]:
    if not isinstance(entry, dict) or set(entry) != {"set", "p"}:
        raise FcModelError('each entry must be {"set": [labels], "p": probability}', key)
    labels, p = entry["set"], entry["p"]
    if not isinstance(labels, list) or not labels:
        raise FcModelError("must be a non-empty list of option labels", f"{key}.set")
    members = {_label_index(space, label, f"{key}.set") for label in labels}
    if isinstance(p, bool) or not isinstance(p, int | float) or not 0.0 <= p <= 1.0:
        raise FcModelError("must be a probability in [0, 1]", f"{key}.p")
    return members, float(p)
