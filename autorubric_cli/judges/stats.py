"""Live counters of judge calls, read by the engine's progress display."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class CallStats:
    """Counts of HTTP attempts (or simulated calls) and what they cost, for this grader."""

    calls_started: int = 0
    in_flight: int = 0
    retries: int = 0
    votes: int = 0
    error_votes: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    # calls served by the call cache (docs/guides/cache-and-cost.md), not counted above
    cached: int = 0
    tokens_saved: int = 0
    cost_saved: float = 0.0
    # provider batches (docs/guides/batches.md): sent or re-attached by this run
    batches_submitted: int = 0
    batches_running: int = 0
    batches_done: int = 0
    batch_requests_done: int = 0
    concurrency: dict[str, tuple[int, int]] = field(default_factory=dict)  # judge: (now, max)

    def add_usage(self, usage: dict[str, int], cost: float | None) -> None:
        self.prompt_tokens += usage.get("prompt_tokens", 0)
        self.completion_tokens += usage.get("completion_tokens", 0)
        if cost is not None:
            self.cost += cost

    def add_saved(self, usage: dict[str, int], cost: float | None) -> None:
        self.cached += 1
        self.tokens_saved += usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)
        if cost is not None:
            self.cost_saved += cost
