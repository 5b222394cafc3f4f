"""Retry timing and the one retry loop factory: exponential backoff with full jitter, capped;
`Retry-After` honoured, capped. Every retried thing (a judge's attempts, a batch control call)
gets its tenacity loop from `retrying`, so the decisions are made in one place."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from autorubric_cli.core.config import RetryConfig
from autorubric_cli.judges.policy.failures import JudgeFailure


@dataclass(frozen=True)
class RetryPolicy:
    """Backoff settings. Tests pass tiny values; the defaults suit real providers."""

    base_s: float = 1.0
    cap_s: float = 30.0
    retry_after_cap_s: float = 60.0

    @classmethod
    def from_config(cls, config: RetryConfig) -> RetryPolicy:
        """The policy for a rubric's `grader.retry` section."""
        return cls(
            base_s=config.initial_wait,
            cap_s=config.max_wait,
            retry_after_cap_s=config.max_retry_after,
        )

    def backoff_s(self, attempt: int, rng: random.Random | None = None) -> float:
        """Full jitter: uniform in [0, min(cap, base * 2^(attempt-1))]."""
        ceiling = min(self.cap_s, self.base_s * 2 ** max(attempt - 1, 0))
        return (rng or random).uniform(0.0, ceiling)

    def wait_s(self, attempt: int, failure: JudgeFailure) -> float:
        """How long to wait after a failed attempt number `attempt` (1-based)."""
        if not failure.category.backs_off:  # a bad reply (`parse`) is asked again at once
            return 0.0
        if failure.retry_after is not None:
            return min(failure.retry_after, self.retry_after_cap_s)
        return self.backoff_s(attempt)

    def tenacity_wait(self, state: RetryCallState) -> float:
        """Adapter for tenacity's `wait=`: reads the failure of the attempt that just ended."""
        outcome = state.outcome
        failure = outcome.exception() if outcome is not None else None
        if not isinstance(failure, JudgeFailure):
            return self.backoff_s(state.attempt_number)
        return self.wait_s(state.attempt_number, failure)


def is_retryable(exc: BaseException) -> bool:
    return isinstance(exc, JudgeFailure) and exc.retryable


def retrying(
    policy: RetryPolicy,
    attempts: int,
    before_sleep: Callable[[RetryCallState], None] | None = None,
) -> AsyncRetrying:
    """A tenacity loop: at most `attempts` attempts (the first included), retrying retryable
    `JudgeFailure`s after `policy`'s wait; the last failure is re-raised."""
    return AsyncRetrying(
        stop=stop_after_attempt(attempts),
        wait=policy.tenacity_wait,
        retry=retry_if_exception(is_retryable),
        before_sleep=before_sleep,
        reraise=True,
    )
