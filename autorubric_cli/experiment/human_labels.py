"""`human_labels.jsonl` (beside the store): one line per (rater, item), append-only
(docs/guides/labels.md).

Reading keeps, for each rater and item, the line with the newest `labelled_at` (a later line
wins a tie), so importing an older export after a newer one never rolls a rater back.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path

import orjson
from pydantic import BaseModel, ConfigDict, Field

from autorubric_cli.errors import InputError

LABELS = "human_labels.jsonl"


class LabelLine(BaseModel):
    """One rater's labels for one item, as the page exports and `label import` stores them."""

    model_config = ConfigDict(extra="forbid")

    id: str
    rater: str
    labels: dict[str, str] = Field(default_factory=dict)
    response_sets: dict[str, list[str]] = Field(default_factory=dict)
    notes: dict[str, str] = Field(default_factory=dict)
    labelled_at: datetime
    started_at: datetime | None = None

    def dump(self) -> bytes:
        return orjson.dumps(self.model_dump(mode="json", exclude_none=True)) + b"\n"


Latest = dict[tuple[str, str], LabelLine]
"""(rater, item id) -> the newest line."""


def keep_newest(table: Latest, line: LabelLine) -> None:
    key = (line.rater, line.id)
    held = table.get(key)
    if held is None or line.labelled_at >= held.labelled_at:
        table[key] = line


def read_labels(directory: Path) -> Latest:
    """The newest line of every (rater, item) in DIR/human_labels.jsonl; empty when absent.

    The file is only ever written by `label import` after validation, so a line that does not
    parse is damage: an error naming the line, never silently skipped; except a last line with
    no newline, torn by a crash during an import: it is left out, and the next import cuts it.
    """
    path = directory / LABELS
    table: Latest = {}
    if not path.is_file():
        return table
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                keep_newest(table, LabelLine.model_validate_json(raw))
            except ValueError as exc:
                if not raw.endswith(b"\n"):
                    break
                raise InputError(
                    f"damaged line ({str(exc).splitlines()[0]})", path=str(path), line=number
                ) from None
    return table


def raters_per_item(table: Latest) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for rater, item_id in table:
        out.setdefault(item_id, set()).add(rater)
    return out


def majority_label(labels: list[str]) -> str | None:
    """The strict plurality label, None on a tie."""
    ranked = Counter(labels).most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]
