"""From item records to the ratings `validate` compares, per criterion (no I/O).

Human ratings come from each record's `human_ratings` (copied from the dataset by `run`), or,
when given, only from a `--human` mapping (id -> criterion -> entries). Only items with at
least one human rating for a criterion take part in that criterion. Each judge's ratings for an
item are all its sampled votes (errors and abstentions dropped); the ensemble's is its final
outcome.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from autorubric_cli.core.records import CriterionRecord, ItemRecord
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.validate.space import (
    OptionSpace,
    Rating,
    ensemble_rating,
    human_labels,
    human_rating,
    option_space,
    vote_rating,
)

ENSEMBLE = "ensemble"
HumanEntries = list[str | list[str]]
HumanTable = Mapping[str, Mapping[str, HumanEntries]]
"""item id -> criterion name -> one entry per rater."""


@dataclass
class _Pending:
    """What one criterion collects while records stream past."""

    ids: list[str] = field(default_factory=list)
    entries: list[HumanEntries] = field(default_factory=list)
    records: list[CriterionRecord | None] = field(default_factory=list)


@dataclass(frozen=True)
class CriterionRatings:
    """One criterion's items (those humans rated) with human and judge ratings per item."""

    criterion: Criterion
    space: OptionSpace
    item_ids: list[str]
    human: list[list[Rating]]
    judges: dict[str, list[list[Rating]]]


@dataclass
class Collected:
    criteria: list[CriterionRatings]
    judge_ids: list[str]
    ensemble_id: str
    unmatched_human_ids: int = 0


def ensemble_id(judge_ids: Sequence[str]) -> str:
    """'ensemble', unless a judge already has that id."""
    name = ENSEMBLE
    while name in judge_ids:
        name = f"({name})"
    return name


def collect(
    rubric: Rubric,
    records: Iterable[ItemRecord],
    criteria: Sequence[str],
    human: HumanTable | None = None,
) -> Collected:
    """Per selected criterion, the rated items and every rater's ratings of them."""
    selected = [rubric.criterion(name) for name in criteria]
    pending = {c.name: _Pending() for c in selected}
    judge_ids = [j.judge_id for j in rubric.grader.judges]
    seen_ids: set[str] = set()
    for record in records:
        seen_ids.add(record.id)
        ratings = human.get(record.id, {}) if human is not None else record.human_ratings
        by_name = {c.name: c for c in record.criteria}
        for criterion in selected:
            entries = list(ratings.get(criterion.name) or [])
            if entries:
                slot = pending[criterion.name]
                slot.ids.append(record.id)
                slot.entries.append(entries)
                slot.records.append(by_name.get(criterion.name))
                _note_judges(judge_ids, by_name.get(criterion.name))
    ens = ensemble_id(judge_ids)
    built = [_build(c, pending[c.name], judge_ids, ens) for c in selected]
    unmatched = len(set(human) - seen_ids) if human is not None else 0
    return Collected([b for b in built if b.item_ids], judge_ids, ens, unmatched)


def _note_judges(judge_ids: list[str], record: CriterionRecord | None) -> None:
    """Judges that voted but are not in the configuration (kept, after the configured ones)."""
    for vote in record.votes if record is not None else []:
        if vote.judge not in judge_ids:
            judge_ids.append(vote.judge)


def _build(
    criterion: Criterion, pending: _Pending, judge_ids: Sequence[str], ensemble: str
) -> CriterionRatings:
    space = option_space(criterion, (x for e in pending.entries for x in human_labels(e)))
    human = [_human_ratings(entries, space) for entries in pending.entries]
    judges: dict[str, list[list[Rating]]] = {j: [] for j in [*judge_ids, ensemble]}
    for record in pending.records:
        for judge in judge_ids:
            judges[judge].append(_judge_ratings(record, judge, criterion, space))
        final = None if record is None else ensemble_rating(record, criterion, space)
        judges[ensemble].append([] if final is None else [final])
    return CriterionRatings(criterion, space, pending.ids, human, judges)


def _human_ratings(entries: HumanEntries, space: OptionSpace) -> list[Rating]:
    return [r for r in (human_rating(e, space) for e in entries) if r is not None]


def _judge_ratings(
    record: CriterionRecord | None, judge: str, criterion: Criterion, space: OptionSpace
) -> list[Rating]:
    if record is None:
        return []
    found = (vote_rating(v, criterion, space) for v in record.votes if v.judge == judge)
    return [r for r in found if r is not None]
