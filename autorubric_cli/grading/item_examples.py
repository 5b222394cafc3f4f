"""Few-shot examples for per-item calls (docs/guides/per-item.md): whole graded items, chosen with a
seed.

The examples file is read exactly as in per-criterion mode (`few_shot.load_examples`). An
example qualifies when it has a label for at least one criterion of the item; the same
examples are shown for every item with the same criterion names. With `balance_verdicts`,
examples are picked greedily so that each adds as many (criterion, label) pairs not yet shown
as possible (ties: a seeded order), which spreads the verdicts over every criterion at once;
otherwise a seeded sample. An item whose own example is among them gets the choice made
without it (leave-one-out, as `few_shot.Selection`).
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

from autorubric_cli.core.config import FewShotConfig
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.grading.few_shot import LabelledExample, Selection, load_examples
from autorubric_cli.judges.per_item.prompts import ItemExample


def item_rng(seed: int) -> random.Random:
    key = hashlib.sha256(f"few-shot-item\x1f{seed}".encode()).digest()
    return random.Random(int.from_bytes(key, "big"))


def covering(
    labelled: list[LabelledExample], names: list[str], n: int, rng: random.Random
) -> list[LabelledExample]:
    """Up to n examples, each adding the most (criterion, label) pairs not yet shown."""
    pool = list(labelled)
    rng.shuffle(pool)
    shown: set[tuple[str, str]] = set()
    chosen: list[LabelledExample] = []
    while pool and len(chosen) < n:
        gains = [len({(k, e.labels[k]) for k in names if k in e.labels} - shown) for e in pool]
        best = pool.pop(gains.index(max(gains)))
        chosen.append(best)
        shown |= {(k, best.labels[k]) for k in names if k in best.labels}
    return chosen


def item_selection(
    examples: list[LabelledExample], names: list[str], config: FewShotConfig, seed: int
) -> Selection:
    def draw(pool: list[LabelledExample], rng: random.Random) -> list[LabelledExample]:
        n = min(config.n_examples, len(pool))
        balanced = config.balance_verdicts
        chosen = covering(pool, names, n, rng) if balanced else rng.sample(pool, n)
        rng.shuffle(chosen)
        return chosen

    labelled = [e for e in examples if any(k in e.labels for k in names)]
    return Selection(labelled, draw, item_rng(seed).getstate())


def as_item_examples(
    chosen: list[LabelledExample], names: list[str], config: FewShotConfig
) -> list[ItemExample]:
    return [
        ItemExample(
            submission=e.submission,
            labels={k: e.labels[k] for k in names if k in e.labels},
            reasons={k: e.reasons[k] for k in names if k in e.reasons}
            if config.include_reason
            else {},
        )
        for e in chosen
    ]


def select_item_examples(
    examples: list[LabelledExample], names: list[str], config: FewShotConfig, seed: int
) -> list[ItemExample]:
    """The examples every item is shown (but the examples' own items)."""
    return as_item_examples(item_selection(examples, names, config, seed).chosen, names, config)


class ItemExamples:
    """The examples shown with an item's criteria, chosen once per set of criterion names: one
    set for a rubric file's criteria, one per distinct item rubric (docs/reference/
    dataset-files.md, per-item rubrics: an item's own criteria match the examples by name).
    An item whose own example is among them gets the choice made without it (leave-one-out,
    as `few_shot.Selection`)."""

    def __init__(
        self,
        pool: list[LabelledExample] | None = None,
        config: FewShotConfig | None = None,
        seed: int = 0,
    ) -> None:
        self.pool, self.config, self.seed = pool or [], config, seed
        self.selections: dict[tuple[str, ...], Selection] = {}

    def selection(self, names: tuple[str, ...]) -> Selection | None:
        if self.config is None:
            return None
        found = self.selections.get(names)
        if found is None:
            found = item_selection(self.pool, list(names), self.config, self.seed)
            self.selections[names] = found
        return found

    def for_names(self, names: tuple[str, ...], item_id: str | None = None) -> list[ItemExample]:
        """The examples shown with these criteria; when grading `item_id`, never its own."""
        selection = self.selection(names)
        if selection is None or self.config is None:
            return []
        return as_item_examples(selection.for_item(item_id), list(names), self.config)

    def withholds(self, item_id: str, names: tuple[str, ...]) -> bool:
        selection = self.selection(names)
        return selection is not None and selection.holds(item_id)


def item_examples(
    rubric: Rubric,
    seed: int,
    base_dir: Path | None,
    examples: list[LabelledExample] | None = None,
) -> ItemExamples:
    config = rubric.grader.few_shot
    if config is None:
        return ItemExamples()
    pool = load_examples(config, rubric, base_dir) if examples is None else examples
    return ItemExamples(pool, config, seed)
