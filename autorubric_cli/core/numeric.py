"""Tolerant comparison: values within 1e-9 count as equal (docs/guides/rubrics.md)."""

from __future__ import annotations

EPS = 1e-9


def close(a: float, b: float) -> bool:
    return abs(a - b) <= EPS
