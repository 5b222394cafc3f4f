"""Shared by both grading modes: running calls together, and reusing an earlier record's votes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

from autorubric_cli.core.records import ItemRecord, Vote

T = TypeVar("T")
VoteKey = tuple[str, str, int]  # (criterion name, judge id, sample)


async def gather_or_cancel(awaitables: Iterable[Awaitable[T]]) -> list[T]:
    """Run all concurrently; on the first exception cancel the rest, then re-raise it."""
    tasks = [asyncio.ensure_future(a) for a in awaitables]
    try:
        return await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def answered(vote: Vote) -> bool:
    return vote.error is None


def reusable_votes(
    prior: ItemRecord | None, keep: Callable[[Vote], bool] = answered
) -> dict[VoteKey, Vote]:
    """Votes of an earlier record that need no new call: those `keep` accepts (by default,
    every vote without an error)."""
    if prior is None:
        return {}
    return {
        (record.name, vote.judge, vote.sample): vote
        for record in prior.criteria
        for vote in record.votes
        if keep(vote)
    }
