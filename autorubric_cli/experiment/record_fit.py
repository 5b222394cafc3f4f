"""Does a record read back from items.jsonl fit the rubric it was graded with?

A record that parses but does not fit (criteria missing, renamed or reordered, an option or
shuffle index out of range, a verdict on a multi-choice criterion) cannot be scored; readers
treat it like an unreadable line: reported as a warning and left out, never a crash.
"""

from __future__ import annotations

from collections.abc import Sequence

from autorubric_cli.core.records import CriterionRecord, CriterionVerdict, ItemRecord, Vote
from autorubric_cli.core.rubric import Criterion


def misfit(record: ItemRecord, criteria: Sequence[Criterion]) -> str | None:
    """Why the record does not fit the criteria, or None when it does."""
    names = [c.name for c in record.criteria]
    if names != [c.name for c in criteria]:
        return "its criteria differ from the rubric's"
    for criterion, outcome in zip(criteria, record.criteria, strict=True):
        reason = _criterion_misfit(criterion, outcome) or _labels_misfit(criterion, record)
        if reason is not None:
            return f"criterion {criterion.name!r}: {reason}"
    return None


def _labels_misfit(criterion: Criterion, record: ItemRecord) -> str | None:
    """Recorded ground truth and human ratings use the criterion's labels."""
    allowed = (
        {v.value for v in CriterionVerdict}
        if criterion.options is None
        else {o.label for o in criterion.options}
    )
    labels: list[str] = []
    truth = record.ground_truth.get(criterion.name)
    if truth is not None:
        labels.append(truth)
    for entry in record.human_ratings.get(criterion.name, []):
        labels.extend([entry] if isinstance(entry, str) else entry)
    if any(label not in allowed for label in labels):
        return "a recorded label is not one of the criterion's"
    return None


def _criterion_misfit(criterion: Criterion, outcome: CriterionRecord) -> str | None:
    count = len(criterion.options or [])
    if outcome.option is not None and not 0 <= outcome.option.index < count:
        return "option index out of range"
    for vote in outcome.votes:
        reason = _vote_misfit(vote, count)
        if reason is not None:
            return reason
    return None


def _vote_misfit(vote: Vote, count: int) -> str | None:
    indices = [
        *([] if vote.option_index is None else [vote.option_index]),
        *(vote.shuffle_order or []),
        *(vote.option_set or []),
    ]
    if any(not 0 <= i < count for i in indices):
        return "vote option index out of range"
    return None
