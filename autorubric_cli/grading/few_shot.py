"""Few-shot examples: loaded from a labelled dataset file (any docs/reference/dataset-files.md
format, read like the dataset, with the rubric's `dataset.fields`), chosen per criterion with a
seed.

The file has the dataset's line format (docs/reference/dataset-files.md): `submission` plus
`ground_truth`. With
`include_reason`, an example's explanation comes from `metadata.reasons` ({criterion: text});
it lives under `metadata` so that the file stays a valid dataset. The same examples are used
for every item of a criterion: the choice depends only on (seed, criterion name).

Leave-one-out: an item is never shown its own example. When the seeded choice holds the
example whose id is the graded item's id, that item gets the choice made again, by the same
rule and from the same random stream, from the examples without it (`Selection.for_item`);
every other item sees the usual choice. The record of such an item says so
(`few_shot_withheld`).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autorubric_cli.core.config import FewShotConfig
from autorubric_cli.core.items import Item, Submission
from autorubric_cli.core.records import CriterionVerdict
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.judges.prompts import PromptExample
from autorubric_cli.loading.dataset import iter_items


@dataclass(frozen=True)
class LabelledExample:
    id: str
    submission: Submission
    labels: dict[str, str]
    reasons: dict[str, str]


def examples_path(config: FewShotConfig, base_dir: Path | None) -> Path:
    path = Path(config.examples)
    return path if path.is_absolute() or base_dir is None else base_dir / path


def reasons_of(item: Item, path: Path) -> dict[str, str]:
    reasons = item.metadata.get("reasons", {})
    valid = isinstance(reasons, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in reasons.items()
    )
    if not valid:
        raise InputError(
            "`metadata.reasons` must map criterion names to text",
            path=str(path),
            line=item.line,
            key="metadata.reasons",
        )
    return dict(reasons)


def load_examples(
    config: FewShotConfig, rubric: Rubric, base_dir: Path | None
) -> list[LabelledExample]:
    path = examples_path(config, base_dir)
    if path.is_dir():
        raise InputError(
            "few-shot examples from an experiment directory's labels are read by `run` "
            "(docs/reference/rubric-file.md); give a dataset file here",
            path=str(path),
            key="grader.few_shot.examples",
        )
    if not path.is_file():
        raise InputError(
            "few-shot examples file not found (relative paths are from the rubric's folder)",
            path=str(path),
            key="grader.few_shot.examples",
        )
    return [
        LabelledExample(item.id, item.judged(), dict(item.ground_truth), reasons_of(item, path))
        for item in iter_items(path, rubric)
    ]


def label_order(criterion: Criterion) -> list[str]:
    if criterion.options is None:
        return [v.value for v in CriterionVerdict]
    return [o.label for o in criterion.options]


def selection_rng(seed: int, criterion: Criterion) -> random.Random:
    key = hashlib.sha256(f"few-shot\x1f{seed}\x1f{criterion.name}".encode()).digest()
    return random.Random(int.from_bytes(key, "big"))


def balanced(
    labelled: list[LabelledExample], criterion: Criterion, n: int, rng: random.Random
) -> list[LabelledExample]:
    """Round-robin over the labels (in rubric order), each label's examples shuffled."""
    groups = [
        [e for e in labelled if e.labels[criterion.name] == label]
        for label in label_order(criterion)
    ]
    for group in groups:
        rng.shuffle(group)
    chosen: list[LabelledExample] = []
    while len(chosen) < n and any(groups):
        for group in groups:
            if group and len(chosen) < n:
                chosen.append(group.pop())
    return chosen


Draw = Callable[[list[LabelledExample], random.Random], list[LabelledExample]]
"""A seeded choice from a pool of examples, in the order shown."""


@dataclass
class Selection:
    """A seeded choice of examples (`chosen`) that can be made again without one of them.

    `draw` chooses from a pool with a random stream; `state` is that stream's state before the
    choice, so the choice without an example is the same rule on the same stream."""

    pool: list[LabelledExample]
    draw: Draw
    state: Any
    chosen: list[LabelledExample] = field(init=False)
    _ids: set[str] = field(init=False)

    def __post_init__(self) -> None:
        self.chosen = self.draw(self.pool, self._stream())
        self._ids = {e.id for e in self.chosen}

    def _stream(self) -> random.Random:
        rng = random.Random()
        rng.setstate(self.state)
        return rng

    def holds(self, item_id: str) -> bool:
        return item_id in self._ids

    def for_item(self, item_id: str | None) -> list[LabelledExample]:
        """The examples shown when grading `item_id`: never its own."""
        if item_id is None or not self.holds(item_id):
            return self.chosen
        return self.draw([e for e in self.pool if e.id != item_id], self._stream())


def criterion_selection(
    examples: list[LabelledExample], criterion: Criterion, config: FewShotConfig, seed: int
) -> Selection:
    """Up to `n_examples` examples labelled for the criterion, in a seeded order."""

    def draw(pool: list[LabelledExample], rng: random.Random) -> list[LabelledExample]:
        n = min(config.n_examples, len(pool))
        if config.balance_verdicts:
            chosen = balanced(pool, criterion, n, rng)
        else:
            chosen = rng.sample(pool, n)
        rng.shuffle(chosen)
        return chosen

    labelled = [e for e in examples if criterion.name in e.labels]
    return Selection(labelled, draw, selection_rng(seed, criterion).getstate())


def prompt_examples(
    chosen: list[LabelledExample], criterion: Criterion, config: FewShotConfig
) -> list[PromptExample]:
    return [
        PromptExample(
            submission=e.submission,
            answer=e.labels[criterion.name],
            reason=e.reasons.get(criterion.name) if config.include_reason else None,
        )
        for e in chosen
    ]


def select_examples(
    examples: list[LabelledExample], criterion: Criterion, config: FewShotConfig, seed: int
) -> list[PromptExample]:
    """The examples every item of the criterion is shown (but the examples' own items)."""
    chosen = criterion_selection(examples, criterion, config, seed).chosen
    return prompt_examples(chosen, criterion, config)


class CriterionExamples:
    """Each criterion's examples, chosen on first use and kept: the rubric file's criteria and
    any item's own (docs/reference/dataset-files.md, per-item rubrics), which are matched to the
    examples by name like the file's. `chosen`: examples given as they are, by name."""

    def __init__(
        self,
        pool: list[LabelledExample] | None = None,
        config: FewShotConfig | None = None,
        seed: int = 0,
        chosen: Mapping[str, Sequence[PromptExample]] | None = None,
    ) -> None:
        self.pool, self.config, self.seed = pool or [], config, seed
        self.chosen: dict[str, Sequence[PromptExample]] = dict(chosen or {})
        self.selections: dict[str, Selection] = {}

    def selection(self, criterion: Criterion) -> Selection | None:
        if self.config is None or criterion.name in self.chosen:
            return None
        found = self.selections.get(criterion.name)
        if found is None:
            found = criterion_selection(self.pool, criterion, self.config, self.seed)
            self.selections[criterion.name] = found
        return found

    def of(self, criterion: Criterion, item_id: str | None = None) -> Sequence[PromptExample]:
        """The criterion's examples; when grading `item_id`, never the item's own."""
        selection = self.selection(criterion)
        if selection is None or self.config is None:
            return self.chosen.get(criterion.name, ())
        return prompt_examples(selection.for_item(item_id), criterion, self.config)

    def withholds(self, item_id: str, criteria: Sequence[Criterion]) -> bool:
        """Some criterion's usual examples hold the item's own: it was withheld."""
        return any((s := self.selection(c)) is not None and s.holds(item_id) for c in criteria)


def criterion_examples(
    rubric: Rubric,
    seed: int,
    base_dir: Path | None,
    examples: list[LabelledExample] | None = None,
) -> CriterionExamples:
    """The run's examples; `examples` when given (labels of an experiment directory, read by
    the experiment layer), else the file `few_shot.examples` names."""
    config = rubric.grader.few_shot
    if config is None:
        return CriterionExamples()
    pool = load_examples(config, rubric, base_dir) if examples is None else examples
    return CriterionExamples(pool, config, seed)


def examples_by_criterion(
    rubric: Rubric, seed: int, base_dir: Path | None
) -> dict[str, Sequence[PromptExample]]:
    examples = criterion_examples(rubric, seed, base_dir)
    return {c.name: examples.of(c) for c in rubric.criteria}
