"""How a figure is written for people, wherever it is shown: the report's formats
(report/formats.py) and the live progress line alike, so an amount reads the same in both
(`n/a` when undefined or unpriced, never 0)."""

from __future__ import annotations

import math
from typing import Any

UNDEFINED = "n/a"


def number(value: Any, digits: int = 3, *, signed: bool = False) -> str:
    """A figure: a whole number with thousands separators, a fraction with `digits` decimals
    (and its sign when `signed`), `n/a` when undefined (None or NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return UNDEFINED
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:+,}" if signed else f"{value:,}"
    if isinstance(value, float):
        value = value if round(value, digits) else 0.0  # never `-0.000`
        return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"
    return str(value)


def dollars(value: float | None) -> str:
    """Dollars to four decimals; `n/a` when unpriced (never $0)."""
    return UNDEFINED if value is None else "$" + number(float(value), 4)
