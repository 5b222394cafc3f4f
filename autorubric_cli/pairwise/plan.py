"""What `autorubric pairwise` would do (docs/guides/pairwise.md): the systems, the pairs, and the
comparisons (units of work) the runner schedules.

Items are matched by id. An item's place in dataset order is its first appearance, reading the
systems in the order given; a comparison is one (item, pair of systems) both systems answered,
its id `<item>|<first system>|<second system>`, its `index` the item's place times the number of
pairs plus the pair's, so comparisons come in dataset order, an item's pairs together.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from autorubric_cli.core.config import GateCheck, LLMConfig
from autorubric_cli.core.items import Item
from autorubric_cli.core.pair_records import unit_id
from autorubric_cli.core.pairs import Swap
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.experiment.options import GRACE_S, RunOptions
from autorubric_cli.experiment.preflight import Plan
from autorubric_cli.experiment.shard import Shard, shard_of
from autorubric_cli.pairwise.systems import System, SystemSource


@dataclass
class PairwiseOptions:
    """The command's flags (docs/reference/cli.md, `pairwise`)."""

    systems: list[Path]
    labels: list[str] = field(default_factory=list)  # --name SYSTEM=label
    out: Path | None = None
    swap: str = "both"
    judges: list[str] = field(default_factory=list)
    seed: int | None = None
    concurrency: int | None = None
    fields: list[str] = field(default_factory=list)
    cache: bool = True
    cache_dir: Path | None = None
    shard: str | None = None
    batch: bool = False
    max_cost: float | None = None
    replace: bool = False
    min_win_rate: float | None = None
    grace_s: float = GRACE_S

    def run_options(self, directory: Path) -> RunOptions:
        """The flags `run` shares, for the checks and settings both commands make."""
        return RunOptions(
            judges=self.judges,
            out=directory,
            seed=self.seed,
            concurrency=self.concurrency,
            grace_s=self.grace_s,
            fields=self.fields,
            cache=self.cache,
            cache_dir=self.cache_dir,
            shard=self.shard,
            batch=self.batch,
            max_cost=self.max_cost,
            replace=self.replace,
        )


class PairwiseSetup(BaseModel):
    """What a pairwise experiment compares (the manifest's `pairwise` block)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    systems: list[SystemSource]
    swap: Swap
    fields: dict[str, str]
    min_win_rate: float | None = None


@dataclass(frozen=True)
class Unit:
    """One comparison: `item` answered by `first` (system `a`) and `second` (system `b`);
    `context` is the item whose query and reference the judges see (the first system's)."""

    id: str
    index: int
    item: str
    a: str
    b: str
    first: Item
    second: Item

    @property
    def context(self) -> Item:
        return self.first


@dataclass
class PairPlan:
    """The plan: the run's settings (`base`, as `run` would resolve them) and the systems."""

    base: Plan
    setup: PairwiseSetup
    systems: list[System]

    @property
    def rubric(self) -> Rubric:
        return self.base.rubric

    @property
    def config(self) -> LLMConfig:
        return self.base.rubric.grader

    @property
    def directory(self) -> Path:
        return self.base.directory

    @property
    def shard(self) -> Shard | None:
        return self.base.shard

    def pairs(self) -> list[tuple[System, System]]:
        return list(itertools.combinations(self.systems, 2))

    def gate(self) -> list[GateCheck]:
        return gate_checks(self.rubric, self.setup)

    def all_units(self) -> Iterator[Unit]:
        return comparisons(self.systems, None)

    def units(self) -> Iterator[Unit]:
        """The comparisons this session's shard grades, in dataset order."""
        return comparisons(self.systems, self.shard)


def item_order(systems: list[System]) -> dict[str, int]:
    """Each item id's place: its first appearance, reading the systems in order."""
    order: dict[str, int] = {}
    for system in systems:
        for item_id in system.items:
            order.setdefault(item_id, len(order))
    return order


def comparisons(systems: list[System], shard: Shard | None) -> Iterator[Unit]:
    pairs = list(itertools.combinations(systems, 2))
    for place, item_id in enumerate(item_order(systems)):
        for number, (a, b) in enumerate(pairs):
            first, second = a.items.get(item_id), b.items.get(item_id)
            if first is None or second is None:
                continue
            key = unit_id(item_id, a.name, b.name)
            if shard is not None and shard_of(key, shard.count) != shard.index:
                continue
            yield Unit(key, place * len(pairs) + number, item_id, a.name, b.name, first, second)


def gate_checks(rubric: Rubric, setup: PairwiseSetup) -> list[GateCheck]:
    """The rubric's `pairwise.gate`, and `--min-win-rate X` as a check on the win rate of the
    first system against every other."""
    checks = list(rubric.pairwise.gate) if rubric.pairwise is not None else []
    if setup.min_win_rate is not None:
        first, *others = [s.name for s in setup.systems]
        keys = [pair_key(first, other) for other in others]
        checks += [GateCheck(metric=f"pairwise.{k}.win_rate", min=setup.min_win_rate) for k in keys]
    return checks


def pair_key(a: str, b: str) -> str:
    """A pair's key in the report and its gate paths: `<A>_vs_<B>`."""
    return f"{a}_vs_{b}"
