"""One criterion as a per-item call asks it (docs/guides/per-item.md): read by the request, the
prompt, the reply's schema and parser, and the simulated judge."""

from __future__ import annotations

from dataclasses import dataclass

from autorubric_cli.core.rubric import Criterion, Elicitation


@dataclass(frozen=True)
class AskedCriterion:
    """One criterion of a per-item call: its shown option order (None for binary) and the
    item's ground-truth label for it (only the simulated judge reads it)."""

    criterion: Criterion
    shuffle_order: list[int] | None = None
    truth: str | None = None

    @property
    def name(self) -> str:
        return self.criterion.name

    @property
    def option_count(self) -> int | None:
        return None if self.shuffle_order is None else len(self.shuffle_order)

    @property
    def elicitation(self) -> Elicitation:
        return self.criterion.elicitation
