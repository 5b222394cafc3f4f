"""The option space of one criterion, and ratings (human or judge) expressed in it.

A criterion's options O = o_1..o_q are, for a binary criterion, (MET, UNMET) and, when a human
rater used it, CANNOT_ASSESS; for a multi-choice criterion, its options in rubric order, where
an NA option takes part only when a human rater used it. A judge vote that falls outside the
space (CANNOT_ASSESS or an NA option no human used, an error) is an abstention and is dropped.

A rating is a forced choice (one option), a response set (every option the rater finds
reasonable), or both (a judge elicited both ways).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from autorubric_cli.core.records import CriterionRecord, CriterionVerdict, Vote
from autorubric_cli.core.rubric import Criterion

BINARY_LABELS: tuple[str, ...] = tuple(v.value for v in CriterionVerdict)
"""MET, UNMET, CANNOT_ASSESS: the options a binary criterion is compared on."""
BINARY_SET_LABELS: tuple[str, ...] = ("UNMET", "MET")
"""How a binary vote's `option_set` indices are read: the report's encoding, 0 = UNMET, 1 = MET."""


@dataclass(frozen=True)
class OptionSpace:
    """The options compared for one criterion, by label."""

    criterion: str
    labels: tuple[str, ...]
    values: tuple[float | None, ...]

    @property
    def q(self) -> int:
        return len(self.labels)

    def index(self, label: str) -> int | None:
        """Position of a label (exact rubric spelling), or None when outside the space."""
        try:
            return self.labels.index(label)
        except ValueError:
            return None

    def find(self, label: str) -> int | None:
        """Position of a label matched case-insensitively and trimmed, or None."""
        wanted = label.strip().lower()
        for position, candidate in enumerate(self.labels):
            if candidate.lower() == wanted:
                return position
        return None


@dataclass(frozen=True)
class Rating:
    """One rating in space indices: a forced choice, a response set, or both."""

    choice: int | None = None
    members: frozenset[int] | None = None


def option_space(criterion: Criterion, human_labels: Iterable[str]) -> OptionSpace:
    """The options of ``criterion``; abstention options only when a human used them."""
    used = set(human_labels)
    if criterion.options is None:
        labels = [label for label in BINARY_LABELS[:2]]
        values: list[float | None] = [1.0, 0.0]
        if CriterionVerdict.CANNOT_ASSESS.value in used:
            labels.append(CriterionVerdict.CANNOT_ASSESS.value)
            values.append(None)
        return OptionSpace(criterion.name, tuple(labels), tuple(values))
    kept = [o for o in criterion.options if not o.na or o.label in used]
    return OptionSpace(criterion.name, tuple(o.label for o in kept), tuple(o.value for o in kept))


def human_labels(entries: Sequence[str | list[str]]) -> set[str]:
    """Every label a list of human rating entries uses."""
    found: set[str] = set()
    for entry in entries:
        found.update([entry] if isinstance(entry, str) else entry)
    return found


def human_rating(entry: str | list[str], space: OptionSpace) -> Rating | None:
    """A label is a forced choice; a list of labels is a response set."""
    if isinstance(entry, str):
        choice = space.index(entry)
        return None if choice is None else Rating(choice=choice)
    members = frozenset(i for i in (space.index(label) for label in entry) if i is not None)
    return Rating(members=members) if members else None


def vote_label(vote: Vote, criterion: Criterion) -> str | None:
    """The label a vote chose, or None for an errored vote or one without a choice."""
    if vote.error is not None:
        return None
    if criterion.options is None:
        return None if vote.verdict is None else vote.verdict.value
    if vote.option_index is None or not 0 <= vote.option_index < len(criterion.options):
        return None
    return criterion.options[vote.option_index].label


def set_labels(indices: Sequence[int], criterion: Criterion) -> list[str]:
    """Labels of a vote's `option_set` (binary: 0 = UNMET, 1 = MET)."""
    names = BINARY_SET_LABELS if criterion.options is None else [o.label for o in criterion.options]
    return [names[i] for i in indices if 0 <= i < len(names)]


def vote_rating(vote: Vote, criterion: Criterion, space: OptionSpace) -> Rating | None:
    """A judge sample in space indices; None when it errored or abstained."""
    if vote.error is not None:
        return None
    label = vote_label(vote, criterion)
    choice = None if label is None else space.index(label)
    members: frozenset[int] | None = None
    if vote.option_set is not None:
        found = (space.index(label) for label in set_labels(vote.option_set, criterion))
        members = frozenset(i for i in found if i is not None) or None
    if choice is None and members is None:
        return None
    return Rating(choice=choice, members=members)


def ensemble_rating(
    record: CriterionRecord, criterion: Criterion, space: OptionSpace
) -> Rating | None:
    """The ensemble's final outcome as a forced choice; None when it has none in the space.

    A multi-choice record with no option is the NA outcome (every vote abstained) unless every
    vote errored, in which case nothing was graded.
    """
    if not any(vote.error is None for vote in record.votes):
        return None
    label: str | None
    if record.option is not None:
        label = record.option.label
    elif criterion.options is not None:
        na = criterion.na_option_index()
        label = None if na is None else criterion.options[na].label
    else:
        label = None if record.verdict is None else record.verdict.value
    choice = None if label is None else space.index(label)
    return None if choice is None else Rating(choice=choice)
