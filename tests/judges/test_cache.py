"""The call cache's SQLite store: round trip, read-only, tampering, locks
(docs/guides/cache-and-cost.md)."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from autorubric_cli.judges.cache import CachedAnswer, CallCache, cache_path, default_cache_dir

ANSWER = CachedAnswer('{"criterion_status": "MET"}', None, {"prompt_tokens": 9}, 0.25)


def test_round_trip_and_hit_counts(tmp_path: Path) -> None:
    path = tmp_path / "c" / "calls.sqlite3"
    cache = CallCache(path)
    assert cache.get("k") is None
    cache.put("k", "openai/m", ANSWER)
    assert cache.get("k") == ANSWER
    cache.close()
    reopened = CallCache(path)
    assert reopened.get("k") == ANSWER and reopened.get("other") is None
    reopened.close()
    db = sqlite3.connect(path)
    assert db.execute("SELECT model, hits FROM calls").fetchall() == [("openai/m", 2)]
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_readonly_never_creates_or_writes(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite3"
    readonly = CallCache(path, readonly=True)
    assert readonly.get("k") is None
    readonly.put("k", "m", ANSWER)
    readonly.close()
    assert not path.exists()
    CallCache(path).put("k", "m", ANSWER)
    readonly = CallCache(path, readonly=True)
    readonly.put("k2", "m", ANSWER)
    assert readonly.get("k") == ANSWER and readonly.get("k2") is None


def test_a_tampered_entry_is_a_miss_never_a_wrong_answer(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite3"
    cache = CallCache(path)
    cache.put("k", "m", ANSWER)
    cache.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE calls SET value = replace(value, 'MET', 'UNM')")
    db.commit()
    db.close()
    assert CallCache(path).get("k") is None


def cache_warnings(caplog: pytest.LogCaptureFixture) -> int:
    """Warnings go through logging (the CLI renders them as `autorubric: warning: ...`)."""
    return sum(
        r.levelno == logging.WARNING and r.getMessage().startswith("call cache ")
        for r in caplog.records
        if r.name == "autorubric_cli.judges.cache"
    )


def test_a_locked_database_warns_once_and_misses(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "calls.sqlite3"
    CallCache(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    cache = CallCache(path, busy_timeout_s=0.05)
    cache.put("k", "m", ANSWER)
    assert cache.get("k") is None
    cache.put("k2", "m", ANSWER)
    holder.rollback()
    assert cache_warnings(caplog) == 1


def test_garbage_file_warns_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "calls.sqlite3"
    path.write_bytes(b"not a database at all" * 100)
    cache = CallCache(path)
    assert cache.get("a") is None and cache.get("b") is None
    cache.put("a", "m", ANSWER)
    cache.close()
    assert cache_warnings(caplog) == 1


def test_cache_directory_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTORUBRIC_CACHE_DIR", str(tmp_path / "env"))
    assert cache_path(tmp_path / "flag") == tmp_path / "flag" / "calls.sqlite3"
    assert cache_path(None) == tmp_path / "env" / "calls.sqlite3"
    monkeypatch.delenv("AUTORUBRIC_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() in (
        tmp_path / "xdg" / "autorubric",
        Path.home() / "Library" / "Caches" / "autorubric",
    )
