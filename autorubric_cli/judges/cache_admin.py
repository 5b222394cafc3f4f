"""`autorubric cache info|clear|prune`: read and trim the call cache's file
(docs/guides/cache-and-cost.md)."""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path
from typing import TypedDict

from autorubric_cli.errors import InputError
from autorubric_cli.judges.cache import BUSY_TIMEOUT_S

UNITS_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")


def parse_duration(text: str) -> float:
    """`30d`, `12h`, `90m`, `2w`, `45s` → seconds; anything else is an InputError."""
    match = DURATION.match(text)
    if match is None:
        raise InputError(
            f"not a duration: {text!r} (use a number and one of s, m, h, d, w: e.g. 30d)",
            key="--older-than",
        )
    return float(match.group(1)) * UNITS_S[match.group(2)]


def _connect(path: Path) -> sqlite3.Connection:
    try:
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        db.execute("SELECT 1 FROM calls LIMIT 1").fetchall()
    except sqlite3.Error as exc:
        raise InputError(
            f"call cache unreadable ({exc}); `autorubric cache clear` removes it", path=str(path)
        ) from None
    return db


def size_on_disk(path: Path) -> int:
    """The database file with its WAL and shared-memory files."""
    names = (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm"))
    return sum(p.stat().st_size for p in names if p.is_file())


class ModelEntries(TypedDict):
    model: str
    entries: int
    hits: int


class CacheInfo(TypedDict):
    """What `autorubric cache info --format json` prints (keys in this order)."""

    path: str
    exists: bool
    entries: int
    hits: int
    size_bytes: int
    models: list[ModelEntries]


def cache_info(path: Path) -> CacheInfo:
    if not path.is_file():
        return CacheInfo(path=str(path), exists=False, entries=0, hits=0, size_bytes=0, models=[])
    db = _connect(path)
    try:
        rows = db.execute(
            "SELECT model, COUNT(*), SUM(hits) FROM calls GROUP BY model ORDER BY model"
        ).fetchall()
    finally:
        db.close()
    models = [ModelEntries(model=m, entries=n, hits=int(h or 0)) for m, n, h in rows]
    return CacheInfo(
        path=str(path),
        exists=True,
        entries=sum(m["entries"] for m in models),
        hits=sum(m["hits"] for m in models),
        size_bytes=size_on_disk(path),
        models=models,
    )


def clear_cache(path: Path) -> int:
    """Delete the file (and its WAL files); returns the bytes freed."""
    freed = size_on_disk(path)
    for suffix in ("", "-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    return freed


def prune_cache(path: Path, older_than_s: float) -> int:
    """Delete entries not used (stored or served) for `older_than_s`; returns how many."""
    if not path.is_file():
        return 0
    db = _connect(path)
    try:
        cursor = db.execute("DELETE FROM calls WHERE last_used < ?", (time.time() - older_than_s,))
        removed = cursor.rowcount
        db.execute("VACUUM")
    finally:
        db.close()
    return removed
