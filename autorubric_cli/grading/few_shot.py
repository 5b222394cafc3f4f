"""Few-shot examples: loaded from a labelled dataset file (any docs/reference/dataset-files.md
format, read like the dataset, with the rubric's `dataset.fields`), chosen per criterion with a
seed.

The file has the dataset's line format (docs/reference/dataset-files.md): `submission` plus
`ground_truth`. With
`include_reason`, an example's explanation comes from `metadata.reasons` ({criterion: text});
it lives under `metadata` so that the file stays a valid dataset. The same examples are used
for every item of a criterion: the choice depends only on (seed, criterion name).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from autorubric_cli.core.config import FewShotConfig
from autorubric_cli.core.items import Item, Submission
from autorubric_cli.core.records import CriterionVerdict
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.judges.prompts import PromptExample
from autorubric_cli.loading.dataset import iter_items


@dataclass(frozen=True)
class LabelledExample:
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
    if not path.is_file():
        raise InputError(
            "few-shot examples file not found (relative paths are from the rubric's folder)",
            path=str(path),
            key="grader.few_shot.examples",
        )
    return [
        LabelledExample(item.judged(), dict(item.ground_truth), reasons_of(item, path))
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


def select_examples(
    examples: list[LabelledExample], criterion: Criterion, config: FewShotConfig, seed: int
) -> list[PromptExample]:
    """Up to `n_examples` examples labelled for the criterion, in a seeded order."""
    rng = selection_rng(seed, criterion)
    labelled = [e for e in examples if criterion.name in e.labels]
    n = min(config.n_examples, len(labelled))
    if config.balance_verdicts:
        chosen = balanced(labelled, criterion, n, rng)
    else:
        chosen = rng.sample(labelled, n)
    rng.shuffle(chosen)
    return [
        PromptExample(
            submission=e.submission,
            answer=e.labels[criterion.name],
            reason=e.reasons.get(criterion.name) if config.include_reason else None,
        )
        for e in chosen
    ]


class CriterionExamples:
    """Each criterion's examples, chosen on first use and kept: the rubric file's criteria and
    any item's own (docs/reference/dataset-files.md, per-item rubrics), which are matched to the
    examples by name like the file's."""

    def __init__(
        self,
        pool: list[LabelledExample] | None = None,
        config: FewShotConfig | None = None,
        seed: int = 0,
        chosen: Mapping[str, Sequence[PromptExample]] | None = None,
    ) -> None:
        self.pool, self.config, self.seed = pool or [], config, seed
        self.chosen: dict[str, Sequence[PromptExample]] = dict(chosen or {})

    def of(self, criterion: Criterion) -> Sequence[PromptExample]:
        found = self.chosen.get(criterion.name)
        if found is None:
            found = ()
            if self.config is not None:
                found = select_examples(self.pool, criterion, self.config, self.seed)
            self.chosen[criterion.name] = found
        return found


def criterion_examples(rubric: Rubric, seed: int, base_dir: Path | None) -> CriterionExamples:
    config = rubric.grader.few_shot
    if config is None:
        return CriterionExamples()
    return CriterionExamples(load_examples(config, rubric, base_dir), config, seed)


def examples_by_criterion(
    rubric: Rubric, seed: int, base_dir: Path | None
) -> dict[str, Sequence[PromptExample]]:
    examples = criterion_examples(rubric, seed, base_dir)
    return {c.name: examples.of(c) for c in rubric.criteria}
