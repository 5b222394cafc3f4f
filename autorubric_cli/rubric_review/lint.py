"""The checks of a rubric that need no judge (`check --review`, and the first part of every
`review`; docs/guides/rubric-quality.md):

- `duplicate` / `near_duplicate`: two requirements whose words, lowercased and without
  punctuation, are the same sequence, or have a `difflib.SequenceMatcher` ratio of at least
  `NEAR_DUPLICATE` (0.85: "States the refund window" and "States the refund window clearly"
  are near-duplicates; two requirements sharing a topic but asking different things are not);
- `too_long`: a requirement of more than `MAX_WORDS` (60) words: one observable property rarely
  takes more, and a long requirement usually bundles several;
- `no_penalty`: the rubric has no criterion with a negative weight, so a response with a
  serious error loses only what that error's absence would have earned.
"""

from __future__ import annotations

import difflib
import re
from itertools import combinations

from autorubric_cli.core.json_model import Block
from autorubric_cli.core.rubric import Rubric

NEAR_DUPLICATE = 0.85
MAX_WORDS = 60
WORD = re.compile(r"[^\W_]+")


class Finding(Block):
    """One problem found without a judge: its kind, the criteria it is about, and why."""

    kind: str
    criteria: list[str]
    detail: str


def words(text: str) -> list[str]:
    return WORD.findall(text.casefold())


def similarity(a: str, b: str) -> float:
    """How alike two requirements read: the ratio of their word sequences (1.0: the same)."""
    return difflib.SequenceMatcher(None, words(a), words(b), autojunk=False).ratio()


def duplicates(rubric: Rubric) -> list[Finding]:
    found = []
    for first, second in combinations(rubric.criteria, 2):
        ratio = similarity(first.requirement, second.requirement)
        if ratio >= NEAR_DUPLICATE:
            kind = "duplicate" if ratio == 1.0 else "near_duplicate"
            detail = f"requirements {ratio:.0%} alike (near-duplicate from {NEAR_DUPLICATE:.0%})"
            found.append(Finding(kind=kind, criteria=[first.name, second.name], detail=detail))
    return found


def too_long(rubric: Rubric) -> list[Finding]:
    return [
        Finding(
            kind="too_long",
            criteria=[c.name],
            detail=f"{len(words(c.requirement))} words (more than {MAX_WORDS})",
        )
        for c in rubric.criteria
        if len(words(c.requirement)) > MAX_WORDS
    ]


def no_penalty(rubric: Rubric) -> list[Finding]:
    if any(c.weight < 0 for c in rubric.criteria):
        return []
    detail = "no criterion has a negative weight: serious errors cost only a missed reward"
    return [Finding(kind="no_penalty", criteria=[], detail=detail)]


def lint(rubric: Rubric) -> list[Finding]:
    """Every finding, in the order: duplicates, long requirements, no penalty."""
    return [*duplicates(rubric), *too_long(rubric), *no_penalty(rubric)]
