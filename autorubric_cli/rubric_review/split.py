"""`autorubric split DATA`: a seeded train/test split, stratified by the items' ground-truth
pattern, written in the input's format (core/split.py: the rule; loading/writers.py: the files).

An item's ground-truth pattern is its labels, criterion by criterion (names as given, labels
trimmed and case-folded; a list by position); items without labels form one pattern of their
own. `--stratify none` draws the test part from all items alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import orjson

from autorubric_cli.core.json_model import Block
from autorubric_cli.core.split import split_indices
from autorubric_cli.errors import InputError
from autorubric_cli.loading.fields import apply_fields
from autorubric_cli.loading.readers import iter_records
from autorubric_cli.loading.writers import part_path, write_parts

Stratify = Literal["ground_truth", "none"]
PARTS = ("train", "test")


class SplitPart(Block):
    path: str
    items: int


class SplitResult(Block):
    """What `split --format json` prints."""

    source: str
    seed: int
    test_share: float
    stratify: Stratify
    strata: int
    train: SplitPart
    test: SplitPart


def pattern(labels: Any) -> str:
    """A ground-truth value as a stratum key: `{criterion: label}` sorted by name, or a list by
    position, labels trimmed and case-folded; no labels at all is the pattern `[]`."""
    if isinstance(labels, list):
        labels = {str(i): v for i, v in enumerate(labels)}
    if not isinstance(labels, dict):
        return "[]"
    kept = sorted((str(k), str(v).strip().casefold()) for k, v in labels.items() if v is not None)
    return orjson.dumps(kept).decode()


def stratum_keys(source: Path, fields: Mapping[str, str], stratify: Stratify) -> list[str]:
    """One key per record, in file order; a duplicate id is an InputError (ids are how
    few-shot examples are kept apart from the items they would leak into)."""
    keys, seen = [], set()
    for where, obj in iter_records(source):
        record = apply_fields(obj, fields, where)
        if not isinstance(record, dict):
            raise where.error("each record must be a JSON object")
        item_id = str(record.get("id", where.line))
        if item_id in seen:
            raise where.error(f"duplicate id {item_id!r}", key="id")
        seen.add(item_id)
        keys.append(pattern(record.get("ground_truth")) if stratify == "ground_truth" else "")
    if not keys:
        raise InputError("dataset has no items", path=str(source), line=1)
    return keys


def check_share(share: float) -> None:
    if not 0.0 < share < 1.0:
        raise InputError(f"must be between 0 and 1 (exclusive), got {share:g}", key="--test-share")


def write_split(
    source: Path,
    keys: Sequence[str],
    share: float,
    seed: int,
    directory: Path | None = None,
    force: bool = False,
) -> tuple[Path, Path, int]:
    """Write `<stem>.train.<ext>` and `<stem>.test.<ext>`; (train path, test path, test size)."""
    check_share(share)
    test = split_indices(keys, share, seed)
    targets = [part_path(source, part, directory) for part in PARTS]
    for target in targets:
        if target.resolve() == source.resolve():
            raise InputError("the split would overwrite its own input", path=str(target))
        if target.exists() and not force:
            raise InputError("exists; pass --force to replace it", path=str(target))
    write_parts(source, targets, [int(i in test) for i in range(len(keys))])
    return targets[0], targets[1], len(test)


def split_dataset(
    source: Path,
    share: float,
    *,
    seed: int = 0,
    stratify: Stratify = "ground_truth",
    fields: Mapping[str, str] | None = None,
    directory: Path | None = None,
    force: bool = False,
) -> SplitResult:
    check_share(share)
    keys = stratum_keys(source, fields or {}, stratify)
    train, test, test_items = write_split(source, keys, share, seed, directory, force)
    return SplitResult(
        source=str(source),
        seed=seed,
        test_share=share,
        stratify=stratify,
        strata=len(set(keys)),
        train=SplitPart(path=str(train), items=len(keys) - test_items),
        test=SplitPart(path=str(test), items=test_items),
    )
