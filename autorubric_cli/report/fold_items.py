"""What the fold keeps of item criteria and tags (docs/reference/report-json.md, "Tags and item
criteria"), in the same single pass as everything else.

Item criteria are counted as (item, criterion) pairs. A binary item criterion's label codes go to
one pooled tally and to a tally per tag it carries (the pooled agreement figures); its votes are
counted once, with the judges'. Tag scores are kept per item, with the item's dataset index, for
the tags' means and bootstrap intervals (which resample items in dataset order, as the score's
does). Everything merges by concatenation or addition.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from autorubric_cli.core.evaluate import ScoringRules, outcome_value
from autorubric_cli.core.records import CriterionRecord
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.core.scoring import criterion_value, tag_scores
from autorubric_cli.report.fold_codes import CriterionTally, merge_criterion_tallies

POOLED = "item criteria"
"""The name of the pooled tally (and of its agreement block)."""


@dataclass
class TagSeries:
    """One tag's per-item scores (the items where it is defined), with each item's dataset
    index."""

    positions: array = field(default_factory=lambda: array("q"))
    values: array = field(default_factory=lambda: array("d"))

    def add(self, position: int, value: float) -> None:
        self.positions.append(position)
        self.values.append(value)

    def extend(self, later: TagSeries) -> None:
        self.positions.extend(later.positions)
        self.values.extend(later.values)

    def in_dataset_order(self) -> np.ndarray:
        """The scores ordered by dataset index (the bootstrap resamples positions)."""
        order = np.argsort(np.frombuffer(self.positions, dtype=np.int64), kind="stable")
        return np.frombuffer(self.values)[order]


def extend_series(mine: dict[str, TagSeries], later: dict[str, TagSeries]) -> None:
    for tag, series in later.items():
        mine.setdefault(tag, TagSeries()).extend(series)


Definition = tuple[float, Sequence[str], Sequence[float]]
"""What a criterion's tag scores need of it: weight, tags, non-NA option values."""


@dataclass
class ItemCriteriaFold:
    """Item criteria (pairs, items, the pooled tally) and every tag's per-item scores."""

    judge_ids: list[str]
    pairs: int = 0  # (item, criterion) pairs of item criteria
    items: int = 0  # items with at least one item criterion
    multi_abstained: int = 0  # pairs of multi-choice item criteria with no outcome value
    pooled: CriterionTally = field(init=False)  # binary item criteria, every pair
    pooled_tags: dict[str, array] = field(default_factory=dict)  # tag -> positions in `pooled`
    criteria_tags: dict[str, TagSeries] = field(default_factory=dict)
    tag_pairs: dict[str, int] = field(default_factory=dict)  # pairs carrying each criterion tag
    item_tags: dict[str, TagSeries] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.pooled = CriterionTally.new(pooled_criterion(POOLED), self.judge_ids)

    def tag_pairs_at(self, tags: Sequence[str], position: int) -> None:
        """The pooled pair at `position` carries `tags`."""
        for tag in tags:
            positions = self.pooled_tags.get(tag)
            if positions is None:
                positions = self.pooled_tags[tag] = array("q")
            positions.append(position)

    def tag_tallies(self) -> dict[str, CriterionTally]:
        """Per tag, the pooled pairs that carry it, by name."""
        return {
            tag: self.pooled.subset(pooled_criterion(tag), positions)
            for tag, positions in sorted(self.pooled_tags.items())
        }

    def add_tags(
        self,
        position: int,
        scores: dict[str, float],
        tagged: Iterable[Sequence[str]],
        item_score: float | None,
        item_tags: Sequence[str],
    ) -> None:
        """One item's criterion-tag scores (`core.scoring.tag_scores`), the tags of its
        criteria (each pair counted), and its own tags with its score."""
        for tag, value in scores.items():
            self.criteria_tags.setdefault(tag, TagSeries()).add(position, value)
        for tags in tagged:
            for tag in tags:
                self.tag_pairs[tag] = self.tag_pairs.get(tag, 0) + 1
        if item_score is not None:
            for tag in item_tags:
                self.item_tags.setdefault(tag, TagSeries()).add(position, item_score)

    def merge(self, later: ItemCriteriaFold) -> None:
        """Add `later` (records that come after these in the file)."""
        self.pairs += later.pairs
        self.items += later.items
        self.multi_abstained += later.multi_abstained
        offset = len(self.pooled.ensemble)
        merge_criterion_tallies(self.pooled, later.pooled)
        for tag, positions in later.pooled_tags.items():
            mine = self.pooled_tags.setdefault(tag, array("q"))
            mine.extend(array("q", (p + offset for p in positions)))
        extend_series(self.criteria_tags, later.criteria_tags)
        extend_series(self.item_tags, later.item_tags)
        for tag, count in later.tag_pairs.items():
            self.tag_pairs[tag] = self.tag_pairs.get(tag, 0) + count


def record_tag_scores(
    rules: ScoringRules, definitions: Sequence[Definition], entries: Sequence[CriterionRecord]
) -> tuple[dict[str, float], list[Sequence[str]]]:
    """An item's criterion-tag scores (`core.scoring.tag_scores`, v_i by `criterion_value`
    under the rules' cannot-assess strategy and clip), and the tags of each tagged criterion.
    `definitions` and `entries` are aligned: the item's whole rubric."""
    ca = rules.cannot_assess
    scored = [
        (weight, criterion_value(weight, outcome_value(r), ca, values), tags)
        for (weight, tags, values), r in zip(definitions, entries, strict=True)
        if tags
    ]
    return tag_scores(scored, rules.clip), [tags for _, _, tags in scored]


def pooled_criterion(name: str) -> Criterion:
    """A binary criterion standing for pooled pairs (its name labels the figures)."""
    return Criterion(name=name, requirement=f"pooled binary item criteria: {name}")
