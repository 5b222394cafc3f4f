"""The pairwise report's one pass over items.jsonl (docs/reference/report-json.md, "Pairwise
report"): the newest record of each comparison, folded into per-pair tallies and per-judge
counts; pairwise/report.py turns them into the typed report.

Every figure is a function of the set of records: the tallies keep each comparison's item place,
and the report orders them by it (dataset order) before any resample.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
from pydantic import ValidationError

from autorubric_cli.core.pair_records import PairRecord, PairVote
from autorubric_cli.core.pairs import VALUE, rubric_preference
from autorubric_cli.core.records import add_counts
from autorubric_cli.experiment.manifest import ITEMS
from autorubric_cli.experiment.store import ReadIssues, latest_lines, open_records

HEADLINE = ""
RUBRIC = "\x00rubric"
"""Tally keys beside the question names: the headline outcome and the rubric preference."""


@dataclass
class PairTally:
    """One pair's comparisons: per tally key, (item place, outcome value) of those decided; and
    (item place, outcome value, words a − words b) of the headline's, for the length model."""

    outcomes: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    lengths: list[tuple[int, float, float]] = field(default_factory=list)

    def add(self, key: str, place: int, value: float | None) -> None:
        if value is not None:
            self.outcomes.setdefault(key, []).append((place, value))


@dataclass
class Spend:
    """Usage and cost summed vote by vote (`grading.record.bill`'s rule: the known costs; None
    when votes were counted and none had a cost; 0.0 with no vote)."""

    usage: dict[str, int] = field(
        default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0}
    )
    cost: float = 0.0
    votes: int = 0
    priced: int = 0

    def add(self, vote: PairVote) -> None:
        add_counts(self.usage, vote.usage)
        self.votes += 1
        if vote.cost is not None:
            self.priced += 1
            self.cost += vote.cost

    @property
    def total_cost(self) -> float | None:
        return self.cost if self.priced or not self.votes else None


@dataclass
class JudgeTally:
    replies: int = 0
    errors: int = 0
    first: int = 0
    decided: int = 0
    order_pairs: int = 0
    consistent: int = 0
    paid: Spend = field(default_factory=Spend)

    def add_vote(self, vote: PairVote) -> None:
        if vote.error is not None:
            self.errors += 1
            return
        self.replies += 1
        if vote.reply in ("A", "B"):
            self.decided += 1
            self.first += vote.reply == "A"


@dataclass
class PairwiseFold:
    """What the report needs from the records, gathered in one pass."""

    pairs: dict[tuple[str, str], PairTally]
    questions: list[str]
    weights: dict[str, float]
    judges: dict[str, JudgeTally]  # every judge of the configuration, in its order
    n_pairs: int
    completed: int = 0
    errored: int = 0
    paid: Spend = field(default_factory=Spend)
    cached: Spend = field(default_factory=Spend)
    items: dict[str, set[int]] = field(default_factory=dict)  # system -> item places compared

    def add(self, record: PairRecord) -> None:
        self.completed += 1
        self.errored += record.status == "error"
        tally = self.pairs.setdefault((record.a, record.b), PairTally())
        place = record.index // self.n_pairs
        for system in (record.a, record.b):
            self.items.setdefault(system, set()).add(place)
        headline = value(record, record.outcome)
        tally.add(HEADLINE, place, headline)
        if headline is not None:
            tally.lengths.append((place, headline, self.word_diff(record)))
        outcomes = {q.name: q.outcome for q in record.questions}
        for question in record.questions:
            tally.add(question.name, place, value(record, question.outcome))
            self.add_votes(question.votes)
        criteria = [record.preference(outcomes.get(name)) for name in self.weights]
        rubric = rubric_preference(criteria, list(self.weights.values()))
        tally.add(RUBRIC, place, None if rubric is None else VALUE[rubric])

    @staticmethod
    def word_diff(record: PairRecord) -> float:
        return float(record.words.get(record.a, 0) - record.words.get(record.b, 0))

    def add_votes(self, votes: list[PairVote]) -> None:
        for vote in votes:
            judge = self.judges.setdefault(vote.judge, JudgeTally())  # a judge since removed
            judge.add_vote(vote)
            (self.cached if vote.cached else self.paid).add(vote)
            if not vote.cached:
                judge.paid.add(vote)
        for judge_id, consistent in order_checks(votes):
            judge = self.judges[judge_id]
            judge.order_pairs += 1
            judge.consistent += consistent


def value(record: PairRecord, winner: str | None) -> float | None:
    """An outcome as the first system's value: a win 1, a tie 0.5, a loss 0."""
    preference = record.preference(winner)
    return None if preference is None else VALUE[preference]


def order_checks(votes: list[PairVote]) -> Iterator[tuple[str, bool]]:
    """(judge, consistent) for each sample answered in both orders: consistent when it preferred
    the same system (or a tie) in both."""
    by_sample: dict[tuple[str, int], list[str]] = {}
    for vote in votes:
        if vote.error is None and vote.preferred is not None:
            by_sample.setdefault((vote.judge, vote.sample), []).append(vote.preferred)
    for (judge, _), preferred in by_sample.items():
        if len(preferred) == 2:
            yield judge, preferred[0] == preferred[1]


def newest_records(
    directory: Path, issues: ReadIssues, fits: Callable[[PairRecord], bool]
) -> Iterator[PairRecord]:
    """The newest record of each comparison, in file order; one that does not read, or does
    not `fit` the experiment (its systems, its questions), is a bad line (a warning)."""
    path = directory / ITEMS
    latest = {number for number, _ in latest_lines(path, issues).values()}
    if not latest:
        return
    with open_records(path) as handle:
        for number, raw in enumerate(handle, start=1):
            if number not in latest:
                continue
            try:
                record = PairRecord.model_validate(orjson.loads(raw))
            except (ValidationError, orjson.JSONDecodeError):
                record = None
            if record is None or not fits(record):
                issues.bad_lines.append(number)
            else:
                yield record
