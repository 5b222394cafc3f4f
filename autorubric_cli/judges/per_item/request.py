"""What one per-item judge call is about (docs/guides/per-item.md): several criteria of one item at
once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autorubric_cli.judges.per_item.asked import AskedCriterion
from autorubric_cli.judges.per_item.replies import item_response_format


@dataclass(frozen=True)
class ItemRequest:
    """One (item, sample) for one judge, asking for `asked` (in rubric order) in one call."""

    item_id: str
    sample: int
    asked: list[AskedCriterion]
    messages: list[dict[str, str]]

    def response_format(self, shared: bool = False) -> dict[str, Any]:
        """The call's own schema (an item's calls differ anyway: nothing to share)."""
        return item_response_format(self.asked)

    @property
    def votes(self) -> int:
        """The votes this request stands for: one per criterion asked."""
        return len(self.asked)
