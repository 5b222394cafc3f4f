"""The criteria the run, cache, per-item, batch and provider tests build their rubrics from:
one binary, one negative-weight binary, an ordinal style scale and a nominal tone."""

from __future__ import annotations

from typing import Any

CORRECT: dict[str, Any] = {"name": "correct", "requirement": "The answer is correct"}
HARMFUL: dict[str, Any] = {
    "name": "harmful",
    "requirement": "The answer gives harmful advice",
    "weight": -5,
}


def style(na_label: str | None = None) -> dict[str, Any]:
    """Bad / Okay / Great, with an NA option named `na_label` when given."""
    options: list[dict[str, Any]] = [
        {"label": "Bad", "value": 0.0},
        {"label": "Okay", "value": 0.5},
        {"label": "Great", "value": 1.0},
    ]
    if na_label is not None:
        options.append({"label": na_label, "na": True})
    return {"name": "style", "requirement": "How good is the style?", "options": options}


def tone(*more: dict[str, Any]) -> dict[str, Any]:
    """A nominal Formal / Casual / Rude scale, then `more` options."""
    options = [
        {"label": "Formal", "value": 1.0},
        {"label": "Casual", "value": 0.5},
        {"label": "Rude", "value": 0.0},
        *more,
    ]
    return {
        "name": "tone",
        "requirement": "Which tone does the answer take?",
        "scale_type": "nominal",
        "options": options,
    }
