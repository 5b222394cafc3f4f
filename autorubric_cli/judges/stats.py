"""Live counters of judge calls, read by the engine's progress display."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Spent:
    """USD over calls, summed as the report sums them (report/build.py): the priced calls'
    costs; undefined (None, shown `n/a`) when calls were counted and none had a price, as for
    a model litellm cannot price; $0 when none were counted."""

    total: float = 0.0
    calls: int = 0
    priced: int = 0

    def add(self, cost: float | None) -> None:
        self.calls += 1
        if cost is not None:
            self.priced += 1
            self.total += cost

    @property
    def usd(self) -> float | None:
        return None if self.calls and not self.priced else self.total


@dataclass
class CallStats:
    """Counts of HTTP attempts (or simulated calls) and what they cost, for this grader.

    Retries are counted per call (docs/guides/runs.md): each call sent again for the same
    request, and each per-item follow-up call; the report counts them alike."""

    calls_started: int = 0
    in_flight: int = 0
    retries: int = 0
    votes: int = 0
    error_votes: int = 0  # counted when a vote's attempts run out, as the breaker counts them
    prompt_tokens: int = 0
    completion_tokens: int = 0
    paid: Spent = field(default_factory=Spent)
    # calls served by the call cache (docs/guides/cache-and-cost.md), not counted above
    cached: int = 0
    tokens_saved: int = 0
    saved: Spent = field(default_factory=Spent)
    # provider batches (docs/guides/batches.md): sent or re-attached by this run
    batches_submitted: int = 0
    batches_running: int = 0
    batches_done: int = 0
    batch_requests_done: int = 0
    concurrency: dict[str, tuple[int, int]] = field(default_factory=dict)  # judge: (now, max)

    @property
    def cost(self) -> float | None:
        """USD paid (`Spent.usd`)."""
        return self.paid.usd

    @property
    def cost_saved(self) -> float | None:
        """USD the call cache saved (`Spent.usd`)."""
        return self.saved.usd

    def add_usage(self, usage: dict[str, int], cost: float | None) -> None:
        self.prompt_tokens += usage.get("prompt_tokens", 0)
        self.completion_tokens += usage.get("completion_tokens", 0)
        self.paid.add(cost)

    def add_saved(self, usage: dict[str, int], cost: float | None) -> None:
        self.cached += 1
        self.tokens_saved += usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)
        self.saved.add(cost)
