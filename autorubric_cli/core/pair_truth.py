"""Which of two answers is truly better, for offline data (docs/guides/pairwise.md, "Offline"):
what the simulated judge prefers with its preference strength.

Per question, from the two items (the same item id, answered by each system):
1. ground truth: both items labelled for the criterion. A label's value is MET 1, UNMET 0, an
   option's value; CANNOT_ASSESS and NA options have none. The higher value is better (the lower
   for a penalty criterion, whose MET means the mistake is present); equal values: neither.
   The overall question: the rubric preference (`pairs.rubric_preference`) of the criteria's.
2. otherwise `metadata.score`, a number on both items: the higher is better; equal: neither.
3. otherwise nothing is known: neither is better.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from autorubric_cli.core.items import Item
from autorubric_cli.core.pairs import Preference, rubric_preference
from autorubric_cli.core.rubric import Criterion


def truth_value(criterion: Criterion, label: str) -> float | None:
    """A ground-truth label's value; None for CANNOT_ASSESS, an NA option, or a label the
    criterion does not have (an experiment's items may carry another rubric's labels)."""
    if criterion.options is None:
        return {"MET": 1.0, "UNMET": 0.0}.get(label)
    option = next((o for o in criterion.options if o.label == label), None)
    return None if option is None or option.na else option.value


def compared(a: float, b: float) -> Preference:
    return "tie" if a == b else "A" if a > b else "B"


def criterion_truth(criterion: Criterion, a: Item, b: Item) -> Preference | None:
    """The truly better answer on one criterion, from ground truth; None when unknown."""
    labels = (a.ground_truth.get(criterion.name), b.ground_truth.get(criterion.name))
    if labels[0] is None or labels[1] is None:
        return None
    values = (truth_value(criterion, labels[0]), truth_value(criterion, labels[1]))
    if values[0] is None or values[1] is None:
        return None
    if criterion.weight < 0:
        return compared(values[1], values[0])
    return compared(values[0], values[1])


def score_truth(a: Item, b: Item) -> Preference | None:
    """The truly better answer by `metadata.score`; None when either has no number there."""
    scores = (a.metadata.get("score"), b.metadata.get("score"))
    if not all(_is_number(s) for s in scores):
        return None
    return compared(float(scores[0]), float(scores[1]))  # type: ignore[arg-type]


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def question_truths(
    criteria: Sequence[Criterion], overall: bool, a: Item, b: Item
) -> list[Preference | None]:
    """The truth of each criterion, then of the overall question when it is asked."""
    labelled = [criterion_truth(c, a, b) for c in criteria]
    by_score = score_truth(a, b)
    truths = [by_score if t is None else t for t in labelled]
    if overall:
        known = [t for t in labelled if t is not None]
        rubric = rubric_preference(labelled, [c.weight for c in criteria]) if known else None
        truths.append(by_score if rubric is None else rubric)
    return truths
