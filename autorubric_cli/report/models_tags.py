"""The report's blocks for item criteria and tags as typed models (docs/reference/report-json.md,
"Tags and item criteria"); the pooled agreement blocks are in `models`, beside the blocks they
extend. Same rules as `models`: fields in JSON key order, null where undefined."""

from __future__ import annotations

from autorubric_cli.core.json_model import Block, absent


class ItemCriteriaSummary(Block):
    """Every (item, criterion) pair of the items' own criteria."""

    count: int
    items: int
    met_rate: float | None  # over the pairs of binary item criteria with an outcome
    cannot_assess_rate: float | None  # over every pair


class TagEntry(Block):
    score: float | None
    ci95: list[float] | None
    n_items: int
    n_criteria: int | None = absent()  # criteria tags: the (item, criterion) pairs carrying it


class TagsSection(Block):
    criteria: dict[str, TagEntry]
    items: dict[str, TagEntry]
