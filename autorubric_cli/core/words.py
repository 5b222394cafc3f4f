"""How every message counts things: `1 item`, `2 items` (docs/guides/reports.md, "One
vocabulary"). One helper, so no output says `1 items` or `item(s)`."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 item`, `2 items`, `1,200 items`; `many` spells an irregular plural (`criteria`)."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"
