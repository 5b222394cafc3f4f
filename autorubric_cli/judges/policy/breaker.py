"""The circuit breaker: a judge whose calls keep failing in a way retries cannot fix stops the run.

Two trips, both per judge (thresholds: `grader.breaker`):
- `consecutive_failures` calls in a row failed hopelessly (connection refused, unknown host,
  HTTP 404, HTTP 400) with no answer from the judge in between;
- `failed_votes` votes in a row ran out of attempts, whatever the cause (except
  calls stopped on purpose, e.g. a batch cancelled at the provider: `blames_judge=False`).

A tripped breaker raises `JudgeUnavailable` in every vote of that judge still running, so their
items are never recorded and `resume` grades them once the cause is fixed. To make that true of
the votes that led to the trip as well, an error vote (attempts spent, or a 400/404 that is not
retried) is *held* until the judge next answers a call (the failure was this request's own: it
becomes the error vote it is) or the breaker trips (it raises). When every running vote of the
judge is held, nothing is left to decide, so they are released as error votes. Thus a dead
endpoint stops the run with nothing recorded for it, while a bad item costs one error vote.
"""

from __future__ import annotations

import asyncio

from autorubric_cli.core.config import BreakerConfig
from autorubric_cli.core.words import plural
from autorubric_cli.errors import JudgeError
from autorubric_cli.judges.policy.failures import JudgeFailure


class JudgeUnavailable(JudgeError):
    """The breaker tripped: the run stops with one line naming the judge and the cause."""


class CircuitBreaker:
    """One judge's failure streaks. Every method runs on the event loop thread."""

    def __init__(self, judge_id: str, settings: BreakerConfig | None = None) -> None:
        self.judge_id = judge_id
        self.settings = settings or BreakerConfig()
        self.streak = 0  # hopeless call failures since the last answer
        self.failed_streak = 0  # votes out of attempts since the last good vote
        self.failed_streak_votes = 0  # the same in votes (a per-item request: its criteria)
        self.tripped: JudgeUnavailable | None = None
        self.active_votes = 0
        self._held: list[asyncio.Future[None]] = []

    def check(self) -> None:
        """Raise once tripped: no call of this judge is sent after the trip."""
        if self.tripped is not None:
            raise self.tripped

    def call_answered(self) -> None:
        self.streak = 0
        self._release(None)

    def call_failed(self, failure: JudgeFailure) -> None:
        if not failure.hopeless or self.tripped is not None:
            return
        self.streak += 1
        if self.streak >= self.settings.consecutive_failures:
            self.trip(f"{failure.describe()} ({plural(self.streak, 'call')} in a row)")

    def vote_started(self) -> None:
        self.active_votes += 1

    def vote_ended(self) -> None:
        self.active_votes -= 1
        self._release_if_undecidable()

    def vote_succeeded(self) -> None:
        self.failed_streak = self.failed_streak_votes = 0

    async def vote_failed(self, failure: JudgeFailure, votes: int = 1) -> None:
        """Wait until this error vote (a request standing for `votes` criteria' votes) may be
        recorded; raises JudgeUnavailable on a trip."""
        self.check()
        if not failure.blames_judge:
            return
        self.failed_streak += 1
        self.failed_streak_votes += votes
        if self.failed_streak >= self.settings.failed_votes:
            self.trip(
                f"{self._streak()} in a row failed after every attempt; last: {failure.describe()}"
            )
            self.check()
        held: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._held.append(held)
        self._release_if_undecidable()
        await held

    def _streak(self) -> str:
        """`10 votes`, or for per-item requests `10 per-item requests (40 votes)`: the count
        the progress line's `error votes` shows too."""
        if self.failed_streak_votes == self.failed_streak:
            return plural(self.failed_streak, "vote")
        requests = plural(self.failed_streak, "per-item request")
        return f"{requests} ({plural(self.failed_streak_votes, 'vote')})"

    def trip(self, cause: str) -> None:
        if self.tripped is None:
            self.tripped = JudgeUnavailable(f"judge {self.judge_id!r} is not usable: {cause}")
            self._release(self.tripped)

    def _release_if_undecidable(self) -> None:
        if self._held and len(self._held) >= self.active_votes:
            self._release(None)

    def _release(self, error: JudgeUnavailable | None) -> None:
        held, self._held = self._held, []
        for future in held:
            if future.done():
                continue
            if error is None:
                future.set_result(None)
            else:
                future.set_exception(error)
