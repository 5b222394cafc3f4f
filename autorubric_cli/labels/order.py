"""Which items to label first (docs/guides/labels.md, `--order`).

`disagreement`: an item's information is the judges' disagreement on it: for each criterion
being labelled (the chosen ones of the rubric file, and the item's own), the Shannon entropy
(bits) of the pooled votes of every judge and sample (errored votes left out; CANNOT_ASSESS and
NA options are outcomes like any other), summed over the criteria. Items with more entropy come
first; ties keep dataset order. With `--per-item-raters N`, items that fewer than N raters have
labelled come first, whatever their entropy. `random`: a permutation seeded by the experiment's
seed. `dataset`: dataset order.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from autorubric_cli.core.item_rubric import is_item_criterion
from autorubric_cli.core.records import CriterionRecord, ItemRecord
from autorubric_cli.core.words import plural

Order = Literal["disagreement", "random", "dataset"]
ORDERS: tuple[Order, ...] = ("disagreement", "random", "dataset")


@dataclass
class Ranked:
    id: str
    index: int
    entropy: float
    by_criterion: dict[str, float] = field(default_factory=dict)
    raters: int = 0
    why: str = ""


def vote_entropy(record: CriterionRecord) -> float:
    """Entropy (bits) of the outcomes of one criterion's non-errored votes."""
    outcomes = Counter(
        v.option_index if v.option_index is not None else v.verdict
        for v in record.votes
        if v.error is None and (v.option_index is not None or v.verdict is not None)
    )
    total = sum(outcomes.values())
    return -math.fsum((n / total) * math.log2(n / total) for n in outcomes.values() if n)


def default_order(judges: int, samples: int) -> Order:
    """Disagreement needs votes that can disagree: two judges, or repeated samples."""
    return "disagreement" if judges >= 2 or samples >= 2 else "dataset"


def rank_items(
    records: Iterable[ItemRecord],
    criteria: Sequence[str],
    order: Order,
    *,
    raters: dict[str, int] | None = None,
    per_item_raters: int | None = None,
    seed: int = 0,
) -> list[Ranked]:
    """Every item, in the order a rater should label them, each with why it is there. An item's
    own criteria (docs/reference/dataset-files.md) count with the chosen `criteria`."""
    counts = raters or {}
    ranked = []
    for record in records:
        by_name = {
            c.name: vote_entropy(c)
            for c in record.criteria
            if c.name in criteria or is_item_criterion(c)
        }
        ranked.append(
            Ranked(
                record.id,
                record.index,
                math.fsum(by_name.values()),
                by_name,
                counts.get(record.id, 0),
            )
        )
    ranked.sort(key=lambda r: r.index)
    if order == "disagreement":
        ranked.sort(key=lambda r: -r.entropy)
    elif order == "random":
        random.Random(seed).shuffle(ranked)
    if per_item_raters is not None:
        ranked.sort(key=lambda r: r.raters >= per_item_raters)
    for position, item in enumerate(ranked, start=1):
        item.why = explain(item, order, position, per_item_raters)
    return ranked


def explain(item: Ranked, order: Order, position: int, per_item_raters: int | None) -> str:
    parts = [f"#{position}"]
    if per_item_raters is not None:
        short = item.raters < per_item_raters
        parts.append(
            f"labelled by {item.raters} of the {plural(per_item_raters, 'rater')} wanted"
            + (" (fewer first)" if short else "")
        )
    if order == "disagreement":
        top = sorted(item.by_criterion.items(), key=lambda kv: -kv[1])[:3]
        detail = ", ".join(f"{name} {bits:.2f}" for name, bits in top if bits > 0)
        parts.append(
            f"judges' disagreement {item.entropy:.2f} bits"
            + (f" ({detail})" if detail else " (the judges agree)")
        )
    elif order == "random":
        parts.append("random order (seeded)")
    else:
        parts.append(f"dataset order (item {item.index + 1} of the dataset)")
    return " · ".join(parts)
