"""Shards (docs/guides/shards.md): `run --shard K/N` grades the items whose stable hash of `id` is
shard K.

The hash is SHA-256 of the id's UTF-8 bytes, so every machine, Python version and run puts an
item in the same shard, whatever the dataset's order or the items around it.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Self

from pydantic import BaseModel, Field, model_validator

from autorubric_cli.core.items import Item
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.loading.dataset import iter_items

MAX_SHARDS = 100_000
SHARD_FLAG = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


class Shard(BaseModel):
    """Shard `index` (1-based) of `count`; `dataset_items` counts the whole dataset (after
    `--limit`), so `merge` knows the total without reading the dataset."""

    index: int = Field(ge=1, le=MAX_SHARDS)
    count: int = Field(ge=1, le=MAX_SHARDS)
    dataset_items: int = Field(0, ge=0)

    @model_validator(mode="after")
    def _index_within_count(self) -> Self:
        if self.index > self.count:
            raise ValueError(f"shard {self.index} of {self.count} does not exist")
        return self

    @property
    def label(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """`K/N` with 1 ≤ K ≤ N, from the --shard flag."""
    match = SHARD_FLAG.fullmatch(text)
    if match is None:
        raise InputError(f"expected K/N (for example 2/8), got {text!r}", key="--shard")
    index, count = int(match[1]), int(match[2])
    if not 1 <= index <= count <= MAX_SHARDS:
        raise InputError(
            f"shard {text!r} does not exist: K/N needs 1 <= K <= N <= {MAX_SHARDS}", key="--shard"
        )
    return Shard(index=index, count=count)


def shard_of(item_id: str, count: int) -> int:
    """The 1-based shard of an item id among `count` shards."""
    digest = hashlib.sha256(item_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def in_shard(items: Iterable[Item], shard: Shard | None) -> Iterator[Item]:
    """The items of the shard (all of them when there is no shard), in dataset order."""
    if shard is None:
        yield from items
        return
    for item in items:
        if shard_of(item.id, shard.count) == shard.index:
            yield item


def count_items(
    dataset: Path,
    rubric: Rubric,
    fields: dict[str, str],
    limit: int | None,
    shard: Shard | None,
) -> tuple[int, int]:
    """(items the run covers, items of those in the shard): one validating pass."""
    covered = selected = 0
    for item in iter_items(dataset, rubric, fields):  # every item is validated, as by `run`
        if limit is None or covered < limit:
            covered += 1
            selected += shard is None or shard_of(item.id, shard.count) == shard.index
    return covered, selected


def planned_items(
    dataset: Path,
    rubric: Rubric,
    fields: dict[str, str],
    limit: int | None,
    shard: Shard | None,
) -> Iterator[Item]:
    """The items a run grades, in dataset order: the first `limit`, then those of the shard."""
    items = iter_items(dataset, rubric, fields)
    return in_shard(items if limit is None else itertools.islice(items, limit), shard)
