"""What one per-item judge call is about (docs/guides/per-item.md): several criteria of one item at
once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autorubric_cli.core.rubric import Criterion, Elicitation
from autorubric_cli.judges.per_item.replies import item_response_format


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


@dataclass(frozen=True)
class ItemRequest:
    """One (item, sample) for one judge, asking for `asked` (in rubric order) in one call."""

    item_id: str
    sample: int
    asked: list[AskedCriterion]
    messages: list[dict[str, str]]

    def response_format(self) -> dict[str, Any]:
        return item_response_format(self.asked)
