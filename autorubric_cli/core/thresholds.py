"""Cascade thresholds (docs/guides/cascades.md): `escalate_below` is one number in [0, 1] or a
map `{criterion name: T, "*": T}`; one reading of it for the live run and the replay."""

from __future__ import annotations

from typing import Any

from autorubric_cli.core.numeric import in_unit_interval
from autorubric_cli.errors import ValueAt, unknown_name_message

OTHER_CRITERIA = "*"  # in an `escalate_below` map: every criterion not named


def criterion_threshold(escalate_below: float | dict[str, float], criterion: str) -> float:
    """A criterion's threshold: the one number, else its entry in the map, else the map's
    `"*"`, else 1.0 (the default: escalate whatever is not unanimous)."""
    if not isinstance(escalate_below, dict):
        return escalate_below
    return escalate_below.get(criterion, escalate_below.get(OTHER_CRITERIA, 1.0))


def checked_thresholds(value: Any) -> float | dict[str, float]:
    """A number in [0, 1], or a non-empty map of criterion names to such numbers."""
    if not isinstance(value, dict):
        if not in_unit_interval(value):
            raise ValueError("escalate_below must be a number in [0, 1] or a map of them")
        return float(value)
    if not value:
        raise ValueError('an empty escalate_below map; name criteria, or "*" for all')
    for name, threshold in value.items():
        if not in_unit_interval(threshold):
            raise ValueError(f"the threshold of `{name}` must be a number in [0, 1]")
    return {str(name): float(threshold) for name, threshold in value.items()}


def check_map_names(escalate_below: float | dict[str, float], names: list[str]) -> None:
    """A map may name only the rubric's criteria (and `"*"`)."""
    if not isinstance(escalate_below, dict):
        return
    for name in escalate_below:
        if name != OTHER_CRITERIA and name not in names:
            raise ValueAt(
                "cascade escalate_below: "
                + unknown_name_message("criterion", name, [*names, OTHER_CRITERIA]),
                ("grader", "cascade", "escalate_below", name),
            )
