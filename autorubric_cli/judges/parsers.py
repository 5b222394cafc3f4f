"""How a judge's reply is read: the parser a call loop is given, and the vote fields an answer
fills (its shown positions mapped back through the shuffle shown)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TypeVar

from autorubric_cli.core.shuffle import original_index
from autorubric_cli.judges.replies import BINARY_SET_ORDER, Answer, parse_answer
from autorubric_cli.judges.request import Completion, VoteRequest

T = TypeVar("T")
Parser = Callable[[Completion], T]
"""Reads a reply (its text; all its choices for a call asking for several samples); raises a
`parse` JudgeFailure when it is not a usable answer."""


def of_text(read: Callable[[str | None], T]) -> Parser[T]:
    """The parser that reads a reply's text with `read`."""
    return lambda completion: read(completion.content)


def vote_parser(request: VoteRequest) -> Parser[Answer]:
    """The parser of one criterion's reply (`replies.parse_answer`)."""
    return of_text(
        partial(
            parse_answer,
            option_count=request.option_count,
            elicitation=request.elicitation,
            asked=request.asked_fields,
            affected=request.names_criteria,
        )
    )


def answer_fields(shuffle_order: list[int] | None, answer: Answer) -> dict[str, object]:
    """The vote fields an answer fills, its shown positions mapped back to original indices."""
    option_index = None
    if shuffle_order is not None and answer.shown_position is not None:
        option_index = original_index(shuffle_order, answer.shown_position)
    return {
        "verdict": answer.verdict,
        "option_index": option_index,
        "reason": answer.explanation,
        "option_set": original_set(shuffle_order, answer.shown_set),
        "affected": None if answer.affected is None else list(answer.affected),
    }


def original_set(
    shuffle_order: list[int] | None, shown_set: tuple[int, ...] | None
) -> list[int] | None:
    """A response set's 1-based shown positions as original indices, sorted and unique.

    Binary criteria (no shuffle order) use the fixed order 1. MET, 2. UNMET, which maps to the
    binary encoding 0 = UNMET, 1 = MET.
    """
    if shown_set is None:
        return None
    order = BINARY_SET_ORDER if shuffle_order is None else shuffle_order
    return sorted({original_index(order, position) for position in shown_set})
