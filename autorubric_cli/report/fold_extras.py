"""What the report's fold keeps for standard errors and judge bias, in the same single pass.

Per item (aligned with the fold's item scores, reordered with them): the cluster value (and,
where an item lacks it, the metadata keys beside it, for a "did you mean"), the
`metadata.model` that wrote the submission, the output word count and each shared criterion's
outcome value (cluster and model names interned: a few distinct values repeat over many items;
an item's own criteria follow the shared ones in its record and are not counted here). Per
judge: chosen options by shown position (shared multi-choice criteria with shuffled options) and
the sample pairs shown in different orders. Everything merges by concatenation or addition, so
the figures do not depend on how the file was split among workers.
"""

from __future__ import annotations

import math
import sys
from array import array
from dataclasses import dataclass, field

import numpy as np

from autorubric_cli.core.clusters import KEYS_KEPT, cluster_value, nearby_keys
from autorubric_cli.core.evaluate import outcome_value
from autorubric_cli.core.records import ItemRecord, Vote, add_counts
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.metrics.judge_bias import consistent_pairs

NAN = math.nan


@dataclass
class FoldExtras:
    criteria: tuple[Criterion, ...]
    judge_ids: list[str]
    cluster: tuple[str, ...] | None = None  # the cluster key's path into metadata
    shuffled: bool = True  # options were shown in seeded random orders
    clusters: list[str | None] = field(default_factory=list)
    cluster_keys: set[str] = field(default_factory=set)  # keys beside a missing cluster key
    models: list[str | None] = field(default_factory=list)
    words: array = field(default_factory=lambda: array("d"))
    values: dict[str, array] = field(default_factory=dict)
    positions: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    order_pairs: dict[str, dict[str, int]] = field(default_factory=dict)
    _by_criterion: dict[str, dict[str, list[int]]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.values = {c.name: array("d") for c in self.criteria}
        shown = [c for c in self.criteria if c.options is not None] if self.shuffled else []
        self.positions = {
            j: {c.name: [0] * len(c.option_list()) for c in shown} for j in self.judge_ids
        }
        self.order_pairs = {j: {"pairs": 0, "consistent": 0} for j in self.judge_ids}
        self._by_criterion = {  # the same count lists, by criterion then judge
            c.name: {j: self.positions[j][c.name] for j in self.judge_ids} for c in shown
        }

    def add(self, record: ItemRecord) -> None:
        metadata = record.metadata
        cluster = None if self.cluster is None else cluster_value(metadata, self.cluster)
        self.clusters.append(None if cluster is None else sys.intern(cluster))
        if cluster is None and self.cluster is not None and len(self.cluster_keys) < KEYS_KEPT:
            self.cluster_keys.update(nearby_keys(metadata, self.cluster))
        model = metadata.get("model")
        self.models.append(sys.intern(model) if isinstance(model, str) else None)
        self.words.append(record.word_counts.get("output", NAN))
        for criterion, criterion_record in zip(self.criteria, record.criteria, strict=False):
            value = outcome_value(criterion_record)
            self.values[criterion.name].append(NAN if value is None else value)
            if criterion.options is not None and self.shuffled:
                self._add_positions(criterion.name, criterion_record.votes)

    def _add_positions(self, name: str, votes: list[Vote]) -> None:
        by_judge = self._by_criterion[name]
        repeated = len(votes) > len(self.judge_ids)  # repeated samples somewhere
        shown: dict[str, list[tuple[list[int], int]]] = {}
        for vote in votes:
            order, chosen = vote.shuffle_order, vote.option_index
            if order is None or chosen is None or vote.error is not None:
                continue
            counts = by_judge.get(vote.judge)
            if counts is None or len(order) != len(counts) or chosen not in order:
                continue
            counts[order.index(chosen)] += 1
            if repeated:
                shown.setdefault(vote.judge, []).append((order, chosen))
        for judge, choices in shown.items():
            pairs, same = consistent_pairs(choices)
            tally = self.order_pairs[judge]
            tally["pairs"] += pairs
            tally["consistent"] += same

    def merge(self, later: FoldExtras) -> None:
        """Add `later` (records that come after these in the file)."""
        self.clusters.extend(later.clusters)
        self.cluster_keys |= later.cluster_keys
        self.models.extend(later.models)
        self.words.extend(later.words)
        for name, values in later.values.items():
            self.values[name].extend(values)
        for judge, by_criterion in later.positions.items():
            for name, counts in by_criterion.items():
                mine = self.positions[judge][name]
                mine[:] = [a + b for a, b in zip(mine, counts, strict=True)]
        for judge, tally in later.order_pairs.items():
            add_counts(self.order_pairs[judge], tally)

    def reorder(self, order: np.ndarray) -> None:
        """Put the per-item series in the order `order` gives (dataset order)."""
        self.clusters = [self.clusters[i] for i in order]
        self.models = [self.models[i] for i in order]
        for values in (self.words, *self.values.values()):
            permuted = np.frombuffer(values, dtype=np.float64)[order]
            values[:] = array("d", permuted.tobytes())
