"""Tolerant comparison: values within 1e-9 count as equal (docs/guides/rubrics.md); what a
probability or a threshold read from a file may be."""

from __future__ import annotations

import math
from typing import Any

EPS = 1e-9


def close(a: float, b: float) -> bool:
    return abs(a - b) <= EPS


def in_unit_interval(value: Any) -> bool:
    """A finite number (not a bool) in [0, 1]."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0.0 <= value <= 1.0
    )
