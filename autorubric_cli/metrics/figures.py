"""The value a metric function returns: a finite float, or ``Undefined`` with the reason.

Undefined figures are never reported as 0: a kappa with no chance disagreement or a
correlation of a constant series has no value, and a report must say so and why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Undefined:
    """A metric with no value on the data given, and the reason why."""

    reason: str


Figure = float | Undefined


def figure(value: float | np.floating[Any], reason: str = "not a finite number") -> Figure:
    """A plain Python float, or Undefined if the value is NaN or infinite."""
    number = float(value)
    return number if math.isfinite(number) else Undefined(reason)


def ratio(numerator: float, denominator: float, reason: str) -> Figure:
    """numerator / denominator, Undefined with ``reason`` when the denominator is 0."""
    if denominator == 0:
        return Undefined(reason)
    return figure(numerator / denominator)


def value_or_none(value: Figure) -> float | None:
    """The float, or None for an Undefined figure (the JSON form)."""
    return None if isinstance(value, Undefined) else value


def put_figure(block: dict[str, Any], key: str, value: Figure, undefined: dict[str, str]) -> None:
    """Store a figure in a JSON block as float or None, recording the reason for None."""
    if isinstance(value, Undefined):
        block[key] = None
        undefined[key] = value.reason
    else:
        block[key] = float(value)


def figures_json(figures: dict[str, Figure], undefined: dict[str, str]) -> dict[str, Any]:
    """Figures as JSON values (None where undefined); reasons are added to ``undefined``."""
    block: dict[str, Any] = {}
    for key, value in figures.items():
        put_figure(block, key, value, undefined)
    return block
