"""How the text renderers write a figure: three decimals, `n/a` when undefined (never 0)."""

from __future__ import annotations


def number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
