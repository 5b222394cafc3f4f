"""Does a record read back from items.jsonl fit the rubric it was graded with?

A record that parses but does not fit (criteria missing, renamed or reordered, an option or
shuffle index out of range, a verdict on a multi-choice criterion) cannot be scored; readers
treat it like an unreadable line: reported as a warning and left out, never a crash.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from autorubric_cli.core.item_rubric import is_item_criterion
from autorubric_cli.core.records import CriterionRecord, CriterionVerdict, ItemRecord
from autorubric_cli.core.rubric import Criterion

VOTE_INDEX = "vote option index out of range"
VERDICTS = frozenset(v.value for v in CriterionVerdict)


@dataclass(frozen=True)
class RecordFit:
    """The rubric's criteria prepared once, to check many records against them."""

    criteria: tuple[Criterion, ...]
    names: list[str]
    counts: tuple[int, ...]  # options per criterion (0 for binary)
    allowed: tuple[frozenset[str], ...]  # the labels ground truth and human ratings may use

    @classmethod
    def of(cls, criteria: Sequence[Criterion]) -> RecordFit:
        verdicts = VERDICTS
        return cls(
            criteria=tuple(criteria),
            names=[c.name for c in criteria],
            counts=tuple(len(c.options or []) for c in criteria),
            allowed=tuple(
                verdicts if c.options is None else frozenset(o.label for o in c.options)
                for c in criteria
            ),
        )

    def misfit(self, record: ItemRecord) -> str | None:
        """Why the record does not fit the criteria, or None when it does. The rubric's
        criteria come first; any entry after them is an item criterion with its definition
        (docs/reference/experiment-directory.md), checked against that definition."""
        entries = record.criteria
        shared = len(self.names)
        if [c.name for c in entries[:shared]] != self.names:
            return "its criteria differ from the rubric's"
        labelled = bool(record.ground_truth or record.human_ratings)
        for name, count, allowed, outcome in zip(
            self.names, self.counts, self.allowed, entries, strict=False
        ):
            reason = _criterion_misfit(count, outcome)
            if reason is None and labelled:
                reason = _labels_misfit(name, allowed, record)
            if reason is not None:
                return f"criterion {name!r}: {reason}"
        return _item_criteria_misfit(entries[shared:], record, labelled)


def _item_criteria_misfit(
    entries: Sequence[CriterionRecord], record: ItemRecord, labelled: bool
) -> str | None:
    """An item criterion's entry keeps its definition; its outcome and labels fit it."""
    for entry in entries:
        if not is_item_criterion(entry):
            return "its criteria differ from the rubric's"
        options = entry.options
        reason = _criterion_misfit(len(options or ()), entry)
        if reason is None and labelled:
            allowed = VERDICTS if options is None else frozenset(o.label for o in options)
            reason = _labels_misfit(entry.name, allowed, record)
        if reason is not None:
            return f"criterion {entry.name!r}: {reason}"
    return None


def misfit(record: ItemRecord, criteria: Sequence[Criterion]) -> str | None:
    """Why the record does not fit the criteria, or None when it does."""
    return RecordFit.of(criteria).misfit(record)


def _labels_misfit(name: str, allowed: frozenset[str], record: ItemRecord) -> str | None:
    """Recorded ground truth and human ratings use the criterion's labels."""
    truth = record.ground_truth.get(name)
    fits = truth is None or truth in allowed
    for entry in record.human_ratings.get(name, ()):
        fits = fits and (entry in allowed if isinstance(entry, str) else allowed.issuperset(entry))
    return None if fits else "a recorded label is not one of the criterion's"


def _criterion_misfit(count: int, outcome: CriterionRecord) -> str | None:
    if outcome.option is not None and not 0 <= outcome.option.index < count:
        return "option index out of range"
    for vote in outcome.votes:  # once per vote: the checks of _vote_misfit, inlined
        index = vote.option_index
        if index is not None and not 0 <= index < count:
            return VOTE_INDEX
        if vote.shuffle_order and _out_of_range(vote.shuffle_order, count):
            return VOTE_INDEX
        if vote.option_set and _out_of_range(vote.option_set, count):
            return VOTE_INDEX
    return None


def _out_of_range(indices: list[int], count: int) -> bool:
    """Whether an option index the vote names (shuffle, set) is out of range."""
    return min(indices) < 0 or max(indices) >= count
