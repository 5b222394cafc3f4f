"""The call cache's store (docs/guides/cache-and-cost.md): one SQLite file shared by every
experiment and process.

Invariant: the cache can only make a run cheaper, never fail it or change an answer. WAL mode
lets many readers run beside one writer; a short busy timeout bounds how long a call waits for
another process's write. Any sqlite error (locked past the timeout, a torn or corrupt file)
prints ONE warning and turns the cache off for the rest of the run: the call is then just sent.
Each entry carries a digest of (key, value) checked on read, so bytes overwritten inside a page
that SQLite itself does not notice are a miss, never a wrong answer.

Hits are counted in memory and added to the file once, at close (a write per hit would make
every hit a transaction). `synchronous=NORMAL` is enough: a lost last entry only costs a call.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import orjson

logger = logging.getLogger(__name__)

FILE_NAME = "calls.sqlite3"
BUSY_TIMEOUT_S = 2.0
SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    value BLOB NOT NULL,
    digest BLOB NOT NULL,
    created REAL NOT NULL,
    hits INTEGER NOT NULL DEFAULT 0,
    last_used REAL NOT NULL
) WITHOUT ROWID
"""


def default_cache_dir() -> Path:
    """`AUTORUBRIC_CACHE_DIR`, else the platform's user cache directory + `/autorubric`."""
    explicit = os.environ.get("AUTORUBRIC_CACHE_DIR")
    if explicit:
        return Path(explicit)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "autorubric"


def cache_path(cache_dir: Path | None) -> Path:
    return (cache_dir if cache_dir is not None else default_cache_dir()) / FILE_NAME


def entry_digest(key: str, value: bytes) -> bytes:
    return hashlib.blake2b(key.encode() + b"\0" + value, digest_size=16).digest()


@dataclass(frozen=True)
class CachedAnswer:
    """What a stored call brings back: exactly what the transport returned the first time."""

    content: str | None
    reasoning: str | None
    usage: dict[str, int]
    cost: float | None


class CallCache:
    """Get and put answers by request key. `readonly` never creates or writes the file."""

    def __init__(
        self, path: Path, *, readonly: bool = False, busy_timeout_s: float = BUSY_TIMEOUT_S
    ) -> None:
        self.path = path
        self.readonly = readonly
        self.busy_timeout_s = busy_timeout_s
        self.broken = False
        self.hits: Counter[str] = Counter()
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is not None or self.broken:
            return self._db
        try:
            if self.readonly:
                if not self.path.is_file():
                    self.broken = True  # nothing cached yet: every lookup is a miss, silently
                    return None
                uri = f"file:{self.path}?mode=ro"
                db = sqlite3.connect(
                    uri, uri=True, timeout=self.busy_timeout_s, isolation_level=None
                )
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=self.busy_timeout_s, isolation_level=None)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute(SCHEMA)
            db.execute("SELECT 1 FROM calls LIMIT 1").fetchall()  # a corrupt header fails here
        except (sqlite3.Error, OSError) as exc:
            self._disable(exc)
            return None
        self._db = db
        return db

    def _disable(self, exc: BaseException) -> None:
        if not self.broken:
            logger.warning(
                "call cache %s unusable (%s); continuing without it (calls are sent)",
                self.path,
                exc,
            )
        self.broken = True
        self._close_quietly()

    def get(self, key: str, *, count: bool = True) -> CachedAnswer | None:
        """The stored answer; `count`: a hit served to a call (not a look that decides how to
        send it)."""
        db = self._connect()
        if db is None:
            return None
        try:
            row = db.execute("SELECT value, digest FROM calls WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:
            self._disable(exc)
            return None
        if row is None or not isinstance(row[0], bytes) or entry_digest(key, row[0]) != row[1]:
            return None
        try:
            data: dict[str, Any] = orjson.loads(row[0])
            answer = CachedAnswer(data["content"], data["reasoning"], data["usage"], data["cost"])
        except (orjson.JSONDecodeError, KeyError, TypeError):
            return None
        if count:
            self.hits[key] += 1
        return answer

    def put(self, key: str, model: str, answer: CachedAnswer) -> None:
        db = self._connect()
        if db is None or self.readonly:
            return
        value = orjson.dumps(asdict(answer))  # the fields in order: the bytes are unchanged
        now = time.time()
        try:
            db.execute(
                "INSERT OR IGNORE INTO calls (key, model, value, digest, created, last_used) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (key, model, value, entry_digest(key, value), now, now),
            )
        except sqlite3.Error as exc:
            self._disable(exc)

    def close(self) -> None:
        """Add this run's hit counts to the file, then close it."""
        db = self._db
        if db is not None and self.hits and not self.readonly:
            now = time.time()
            try:
                with db:
                    db.execute("BEGIN")
                    db.executemany(
                        "UPDATE calls SET hits = hits + ?, last_used = ? WHERE key = ?",
                        [(n, now, key) for key, n in self.hits.items()],
                    )
            except sqlite3.Error as exc:
                self._disable(exc)
        self.hits.clear()
        self._close_quietly()

    def _close_quietly(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
