"""Tolerant comparison: values within 1e-9 count as equal (SPEC §4)."""

from __future__ import annotations

EPS = 1e-9


def close(a: float, b: float) -> bool:
    return abs(a - b) <= EPS
