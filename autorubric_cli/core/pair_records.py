"""The records of a pairwise experiment's items.jsonl (docs/reference/experiment-directory.md,
"Pairwise experiments"): one line per comparison, an (item, pair of systems), appended as
each finishes; the newest line of an `id` wins, as for a run's items.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from autorubric_cli.core.json_model import absent
from autorubric_cli.core.pairs import OVERALL, Order, Preference
from autorubric_cli.core.records import Record
from autorubric_cli.core.rubric import Rubric

UNIT_SEPARATOR = "|"
"""Joins a comparison's id: `<item id>|<first system>|<second system>`; system names never hold
it, so the id splits back from the right."""
Winner = str
"""A system's name, or `tie`."""


def unit_id(item: str, a: str, b: str) -> str:
    return UNIT_SEPARATOR.join((item, a, b))


def question_names(rubric: Rubric) -> list[str]:
    """A comparison's questions: the criteria, then `overall` when the rubric asks it."""
    names = [c.name for c in rubric.criteria]
    section = rubric.pairwise
    return names + ([OVERALL] if section is not None and section.overall is not None else [])


class PairVote(Record):
    """One judge's reply in one order: what it was shown (`shown`: the system names, first
    shown first), what it replied (`reply`: `A` is the first shown) and what that means
    (`preferred`: a system's name or `tie`)."""

    judge: str
    sample: int = 0
    order: Order
    shown: list[str]
    reply: Preference | None = None
    preferred: Winner | None = None
    reason: str | None = None
    error: str | None = None
    usage: dict[str, int] = Field(default_factory=dict)
    cost: float | None = None
    thinking: str | None = None
    attempts: int = Field(1, ge=1)
    cached: bool = False
    prompt_cache_saved: float | None = None
    stage: Literal["first", "then"] | None = absent()


class PairQuestion(Record):
    """One criterion of the rubric (or the `overall` question) on one comparison: the outcome
    (a system's name or `tie`; null when every vote errored) and every vote."""

    name: str
    outcome: Winner | None = None
    votes: list[PairVote] = Field(default_factory=list)
    escalated: bool | None = absent()


class PairRecord(Record):
    """One comparison: item `item` answered by systems `a` and `b`. It keeps what was compared
    (the query, the reference, each system's answer as given), so the report and its page
    need nothing but items.jsonl."""

    id: str
    index: int
    item: str
    a: str
    b: str
    status: Literal["ok", "error"]
    outcome: Winner | None = None  # the headline: `overall` when asked, else the rubric's
    questions: list[PairQuestion] = Field(default_factory=list)
    words: dict[str, int] = Field(default_factory=dict)  # output words of a and b, by name
    query: str | None = None
    reference_submission: str | None = absent()
    answers: dict[str, Any] = Field(default_factory=dict)  # a's and b's submission, by name
    usage: dict[str, int] = Field(default_factory=dict)
    cost: float | None = None
    usage_saved: dict[str, int] = Field(default_factory=dict)
    cost_saved: float | None = 0.0
    duration_s: float = 0.0
    error: str | None = None
    simulated: bool = False

    def preference(self, winner: Winner | None) -> Preference | None:
        """A winner said from the pair's side (`A`: system `a`)."""
        if winner is None:
            return None
        return "tie" if winner == "tie" else "A" if winner == self.a else "B"
