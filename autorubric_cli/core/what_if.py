"""`report`'s what-if flags (docs/guides/reports.md): rescore stored votes with other aggregation
methods or another cannot-assess strategy, with no judge calls.

The flags are kept as given and applied to a set of scoring rules: the run's, and each item's
with its own criteria (docs/reference/dataset-files.md, per-item rubrics), so a method named for a
kind reaches every criterion of that kind, shared or the item's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autorubric_cli.core.config import CannotAssessConfig
from autorubric_cli.core.evaluate import ScoringRules


@dataclass(frozen=True)
class WhatIfFlags:
    aggregation: dict[str, str] = field(default_factory=dict)  # criterion kind -> method
    sample_aggregation: str | None = None
    cannot_assess: CannotAssessConfig | None = None

    def apply(self, rules: ScoringRules) -> ScoringRules:
        """`rules` with the flags applied: a kind's method to every criterion of that kind."""
        aggregation = dict(rules.aggregation)
        for criterion in rules.criteria:
            method = self.aggregation.get(criterion.kind)
            if method is not None:
                aggregation[criterion.name] = method
        changes: dict[str, Any] = {"aggregation": aggregation}
        if self.sample_aggregation is not None:
            changes["sample_aggregation"] = self.sample_aggregation
        if self.cannot_assess is not None:
            changes["cannot_assess"] = self.cannot_assess
        return rules.with_overrides(**changes)
