"""Does a record read back from items.jsonl fit the rubric it was graded with?

A record that parses but does not fit (criteria missing, renamed or reordered, an option or
shuffle index out of range, a verdict on a multi-choice criterion) cannot be scored; readers
treat it like an unreadable line: reported as a warning and left out, never a crash.
"""

from __future__ import annotations

from collections.abc import Sequence

from autorubric_cli.core.records import CriterionRecord, ItemRecord, Vote
from autorubric_cli.core.rubric import Criterion


def misfit(record: ItemRecord, criteria: Sequence[Criterion]) -> str | None:
    """Why the record does not fit the criteria, or None when it does."""
    names = [c.name for c in record.criteria]
    if names != [c.name for c in criteria]:
        return "its criteria differ from the rubric's"
    for criterion, outcome in zip(criteria, record.criteria, strict=True):
        reason = _criterion_misfit(criterion, outcome)
        if reason is not None:
            return f"criterion {criterion.name!r}: {reason}"
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
