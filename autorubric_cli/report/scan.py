"""Which line of items.jsonl holds each id's newest record, found in one cheap pass.

The newest line of an id wins (docs/reference/experiment-directory.md), where a line counts once it
parses as a JSON object with an `id` and a `status` (`experiment.store.latest_lines`): a torn line
does not hide an older complete one. Parsing every line for that, and then again to fold it, cost a
second parse of the whole file (2 s of CPU at 100,000 items).

So the scan reads the id of a line the way the product writes it (`{"id":"...",` first, with
no escape inside) from its first bytes, and fully parses only the other lines. The fold workers
parse each line once anyway: they check that a line whose id the scan read this way really is
a complete record with that id (`CHECK`). One that is not complete is a torn line, which
changes nothing unless it was its id's newest line and the id is on another line too (an
older line should then have won); that, or a parsed id that differs from the one read, makes
the fold start over from a scan that parses every line (`index_lines(fast=False)`), the exact
reading (docs/design/reports.md).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from pathlib import Path

from autorubric_cli.experiment.store import open_records, record_head

SKIP, CHECK, FOLD = 0, 1, 2
"""What a fold worker does with a line: nothing; check that it is a complete record with the
id the scan read from its first bytes; fold it (its id's newest line). CHECK | FOLD: both."""
PREFIX = b'{"id":"'


def prefix_id(raw: bytes) -> str | None:
    """The id of a line that starts the way the writer starts every record (orjson, `id`
    first), read without parsing the line; None for any other line."""
    if not raw.startswith(PREFIX):
        return None
    end = raw.find(b'"', len(PREFIX))
    if end < 0:
        return None
    text = raw[len(PREFIX) : end]
    if b"\\" in text:
        return None
    try:
        return text.decode()
    except UnicodeDecodeError:
        return None


@dataclass
class LineIndex:
    """One code per line of the file (SKIP, CHECK, FOLD), and where each line starts."""

    codes: bytearray = field(default_factory=bytearray)
    offsets: array = field(default_factory=lambda: array("q", [0]))  # line n starts at [n - 1]
    repeated: set[str] = field(default_factory=set)  # ids on more than one line
    unreadable: list[int] = field(default_factory=list)  # lines the scan parsed and set aside

    def kept(self) -> list[int]:
        """The line numbers to fold, in file order."""
        return [n for n, code in enumerate(self.codes, start=1) if code & FOLD]


def index_lines(path: Path, *, fast: bool = True) -> LineIndex:
    """The newest line of every id (none when the file is missing: nothing was recorded yet);
    `fast=False` parses every line, as `latest_lines` does."""
    index = LineIndex()
    latest: dict[str, int] = {}
    if not path.exists() and not path.is_symlink():
        return index
    offset = 0
    with open_records(path) as handle:
        for number, raw in enumerate(handle, start=1):
            offset += len(raw)
            index.offsets.append(offset)
            key = prefix_id(raw) if fast else None
            index.codes.append(SKIP if key is None else CHECK)
            if key is None and raw.strip():
                head = record_head(raw)
                if head is None:
                    index.unreadable.append(number)
                else:
                    key = str(head["id"])
            if key is not None:
                if key in latest:
                    index.repeated.add(key)
                latest[key] = number
    for number in latest.values():
        index.codes[number - 1] |= FOLD
    return index
