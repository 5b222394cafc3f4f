"""A criterion's outcome label (core/outcome.py), where the report's modules look for it.

Kept apart from `fold` so that the HTML item rows (also written by the label page) need
neither numpy nor scipy."""

from __future__ import annotations

from autorubric_cli.core.outcome import CA, outcome_label

__all__ = ["CA", "outcome_label"]
