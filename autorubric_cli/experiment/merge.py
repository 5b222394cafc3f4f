"""`autorubric merge OUT DIR...` (docs/guides/shards.md): the shards of one run, as one experiment.

The shards must come from the same rubric, dataset, seed and configuration (settings that only
change speed may differ) and cover every shard once. OUT gets the newest record of every id in
dataset order, copied byte for byte, so `report`, `compare`, `validate` and `resume` read it like
any experiment. Nothing is written to OUT until every check has passed; the manifest is written
last, so an OUT without one is not an experiment, and a failed write removes what was written.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import shutil
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from autorubric_cli import __version__
from autorubric_cli.core.pair_records import PairRecord, question_names
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError, StorageError, writing
from autorubric_cli.experiment.lock import claim_new_directory, no_writer
from autorubric_cli.experiment.manifest import (
    ITEMS,
    MANIFEST,
    RUBRIC_COPY,
    Manifest,
    load_manifest,
    save_manifest,
    sha256_file,
    utc_now,
)
from autorubric_cli.experiment.record_fit import misfit
from autorubric_cli.experiment.shard import Shard, shard_of
from autorubric_cli.experiment.store import open_records, record_head
from autorubric_cli.loading.rubric_loader import load_rubric

# Settings that change how fast a shard ran, never what it recorded: they may differ.
SPEED_KEYS = frozenset({"concurrency", "cache", "batch", "retry", "workers"})
JUDGE_SPEED_KEYS = frozenset({"max_concurrency", "rpm", "api_key_env", "transport"})


@dataclass
class ShardDir:
    directory: Path
    manifest: Manifest
    shard: Shard


@dataclass
class Located:
    """Where the newest record of an id is: shard number, byte offset and length."""

    index: int
    source: int
    line: int
    offset: int
    length: int


@dataclass
class MergeResult:
    shards: int
    items: int
    status: str
    warnings: list[str] = field(default_factory=list)


def merge_shards(out: Path, sources: list[Path], *, allow_partial: bool) -> MergeResult:
    """Check the shards, then write OUT. Raises InputError (exit 2) on any mismatch."""
    shards = [open_shard(d) for d in sources]
    check_same_run(shards)
    warnings = check_coverage(shards, allow_partial)
    shards.sort(key=lambda s: s.shard.index)
    with contextlib.ExitStack() as held:
        for s in shards:  # no shard may be written to while it is read
            held.enter_context(no_writer(s.directory))
        not_empty = "merge output directory already exists and is not empty; choose a new OUT"
        held.enter_context(claim_new_directory(out, not_empty))
        rubric = load_rubric(shards[0].directory / RUBRIC_COPY)
        located = locate_records(shards, warnings)
        with _undo_on_failure(out):
            with writing(out / RUBRIC_COPY):
                shutil.copyfile(shards[0].directory / RUBRIC_COPY, out / RUBRIC_COPY)
            written = write_items(out / ITEMS, shards, located, rubric, warnings)
            manifest = merged_manifest(out, shards, written, warnings)
            save_manifest(out, manifest)
    return MergeResult(len(shards), written, manifest.status, warnings)


def open_shard(directory: Path) -> ShardDir:
    manifest = load_manifest(directory)
    if manifest.shard is None:
        raise InputError(
            "not a shard: only experiments run with --shard K/N can be merged",
            path=str(directory),
        )
    rubric_copy = directory / RUBRIC_COPY
    if not rubric_copy.is_file() or sha256_file(rubric_copy) != manifest.rubric.sha256:
        raise InputError(
            "rubric.yaml is missing or differs from the SHA-256 in manifest.json",
            path=str(rubric_copy),
        )
    return ShardDir(directory, manifest, manifest.shard)


def check_same_run(shards: list[ShardDir]) -> None:
    """Same rubric, dataset (and field mapping, limit), seed, configuration and shard count."""
    first = shards[0]
    for other in shards[1:]:
        for what, a, b in (
            ("rubric (SHA-256)", first.manifest.rubric.sha256, other.manifest.rubric.sha256),
            ("dataset (SHA-256)", first.manifest.dataset.sha256, other.manifest.dataset.sha256),
            ("dataset field mapping", first.manifest.dataset_fields, other.manifest.dataset_fields),
            ("--limit", first.manifest.limit, other.manifest.limit),
            ("seed", first.manifest.seed, other.manifest.seed),
            ("shard count N", first.shard.count, other.shard.count),
            ("kind", first.manifest.kind, other.manifest.kind),
            ("systems compared", _setup(first), _setup(other)),
            ("dataset size", first.shard.dataset_items, other.shard.dataset_items),
        ):
            if a != b:
                raise _mismatch(what, first, other)
        key = config_difference(first.manifest.config, other.manifest.config)
        if key is not None:
            raise _mismatch(f"configuration (`{key}`)", first, other)


def _setup(shard: ShardDir) -> object:
    """A pairwise shard's systems and swap (docs/guides/pairwise.md); None for a run's."""
    return (shard.manifest.model_extra or {}).get("pairwise")


def _mismatch(what: str, a: ShardDir, b: ShardDir) -> InputError:
    return InputError(
        f"shards of different runs cannot be merged: {what} differs between "
        f"{a.directory} (shard {a.shard.label}) and this one (shard {b.shard.label})",
        path=str(b.directory),
    )


def config_difference(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """The first configuration key that differs (speed settings aside), or None."""
    return _first_difference(_result_settings(a), _result_settings(b), "grader")


def _result_settings(config: dict[str, Any]) -> dict[str, Any]:
    kept = {k: v for k, v in config.items() if k not in SPEED_KEYS}
    kept["judges"] = [
        {k: v for k, v in judge.items() if k not in JUDGE_SPEED_KEYS}
        for judge in config.get("judges", [])
    ]
    return kept


def _first_difference(a: Any, b: Any, path: str) -> str | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            found = _first_difference(a.get(key), b.get(key), f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _first_difference(x, y, f"{path}.{i}")
            if found is not None:
                return found
        return None
    return None if a == b else path


def check_coverage(shards: list[ShardDir], allow_partial: bool) -> list[str]:
    """Each shard exactly once; missing ones are an error, or a warning with allow_partial."""
    count = shards[0].shard.count
    seen: dict[int, Path] = {}
    for s in shards:
        if s.shard.index in seen:
            raise InputError(
                f"shard {s.shard.label} is given twice: {seen[s.shard.index]} and {s.directory}",
                path=str(s.directory),
            )
        seen[s.shard.index] = s.directory
    missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in seen]
    if not missing:
        return []
    names = ", ".join(missing)
    if not allow_partial:
        raise InputError(
            f"missing shard(s) {names}; pass --allow-partial to merge the others "
            "(`autorubric resume` on the merged directory can grade the rest later)",
        )
    return [f"merging without shard(s) {names}: their items are pending"]


def locate_records(shards: list[ShardDir], warnings: list[str]) -> dict[str, Located]:
    """The newest complete line of every id, each checked to belong to its shard."""
    located: dict[str, Located] = {}
    for number, s in enumerate(shards):
        path = s.directory / ITEMS
        if not path.exists():
            continue
        offset = 0
        with open_records(path) as handle:
            for line, raw in enumerate(handle, start=1):
                head = _id_and_index(raw)
                if head is None:
                    if raw.strip():
                        warnings.append(f"{path}:{line}: incomplete or unreadable record ignored")
                elif shard_of(head[0], s.shard.count) != s.shard.index:
                    raise InputError(
                        f"item {head[0]!r} does not belong to shard {s.shard.label}",
                        path=str(path),
                        line=line,
                    )
                else:
                    located[head[0]] = Located(head[1], number, line, offset, len(raw))
                offset += len(raw)
    return located


def _id_and_index(raw: bytes) -> tuple[str, int] | None:
    obj = record_head(raw)
    if obj is None:
        return None
    index = obj.get("index")
    return str(obj["id"]), index if isinstance(index, int) else -1


def write_items(
    path: Path,
    shards: list[ShardDir],
    located: dict[str, Located],
    rubric: Rubric,
    warnings: list[str],
) -> int:
    """Copy the located lines in dataset order to a temp file, fsync it, rename it to `path`.
    A line that does not parse as a record fitting the rubric is left out with a warning, as
    `report` would leave it out (a pairwise experiment's: a comparison of its questions)."""
    pairwise = shards[0].manifest.kind == "pairwise"
    order = sorted(located.values(), key=lambda r: (r.index, r.source, r.line))
    tmp = path.with_name(f".{path.name}.merge.tmp")
    written = 0
    with _mapped_items(shards) as views, writing(path), tmp.open("wb") as out:
        for where in order:
            raw = views[where.source][where.offset : where.offset + where.length]
            source = shards[where.source].directory / ITEMS
            problem = _comparison_problem(raw, rubric) if pairwise else _record_problem(raw, rubric)
            if problem is not None:
                warnings.append(f"{source}:{where.line}: {problem}; left out")
                continue
            out.write(raw if raw.endswith(b"\n") else raw + b"\n")
            written += 1
        out.flush()
        os.fsync(out.fileno())
        out.close()
        os.replace(tmp, path)
    return written


@contextlib.contextmanager
def _mapped_items(shards: list[ShardDir]) -> Iterator[list[bytes | mmap.mmap]]:
    """Every shard's items.jsonl mapped read-only (no descriptor stays open per shard)."""
    views: list[bytes | mmap.mmap] = []
    try:
        for s in shards:
            path = s.directory / ITEMS
            size = path.stat().st_size if path.exists() else 0
            if size == 0:
                views.append(b"")
                continue
            with path.open("rb") as handle:
                views.append(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ))
        yield views
    finally:
        for view in views:
            if isinstance(view, mmap.mmap):
                view.close()


def _record_problem(raw: bytes, rubric: Rubric) -> str | None:
    try:
        record = ItemRecord.model_validate(orjson.loads(raw))
    except (ValidationError, orjson.JSONDecodeError):
        return "unreadable record"
    return misfit(record, rubric.criteria)


def _comparison_problem(raw: bytes, rubric: Rubric) -> str | None:
    try:
        record = PairRecord.model_validate(orjson.loads(raw))
    except (ValidationError, orjson.JSONDecodeError):
        return "unreadable record"
    names = [q.name for q in record.questions]
    if names != question_names(rubric) and not (record.status == "error" and not names):
        return "its questions are not this rubric's"
    return None


def merged_manifest(
    out: Path, shards: list[ShardDir], written: int, warnings: list[str]
) -> Manifest:
    """The first shard's run description, over the whole dataset, with where it came from.

    `completed` when every shard is there and completed and every item has a record; otherwise
    `interrupted`: `autorubric resume OUT` grades what is missing (where the dataset is)."""
    base = shards[0].manifest
    total = shards[0].shard.dataset_items
    unfinished = [s for s in shards if s.manifest.status != "completed"]
    for s in unfinished:
        warnings.append(f"shard {s.shard.label} ({s.directory}) is {s.manifest.status}")
    complete = len(shards) == shards[0].shard.count and not unfinished and written >= total
    status = "completed" if complete else "interrupted"
    now = utc_now()
    return base.model_copy(
        update={
            "autorubric_version": __version__,
            "name": out.name,
            "command": sys.argv,
            "created": now,
            "updated": now,
            "experiment_id": str(uuid.uuid4()),  # a new experiment, not the first shard
            "status": status,
            "items_total": total,
            "shard": None,
            "error": None,
            "runs": [{**run, "shard": s.shard.label} for s in shards for run in s.manifest.runs],
            "merged_from": [
                {
                    "path": str(s.directory.resolve()),
                    "shard": s.shard.label,
                    "status": s.manifest.status,
                    "items_total": s.manifest.items_total,
                }
                for s in shards
            ],
        }
    )


@contextlib.contextmanager
def _undo_on_failure(out: Path) -> Iterator[None]:
    """A failed write leaves OUT empty again (its lock file aside), so merge can be rerun."""
    try:
        yield
    except StorageError as exc:
        for name in (MANIFEST, ITEMS, RUBRIC_COPY, f".{ITEMS}.merge.tmp"):
            with contextlib.suppress(OSError):
                (out / name).unlink()
        raise StorageError(
            f"{exc.message}; free space or fix permissions, then merge again", path=exc.path
        ) from None
