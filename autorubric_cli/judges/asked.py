"""What the attempts of one request to a judge came to: the bill, and the reply or the failure."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from autorubric_cli.core.records import add_counts
from autorubric_cli.judges.policy.failures import JudgeFailure
from autorubric_cli.judges.request import Call, Completion

T = TypeVar("T")


@dataclass
class Bill:
    """Usage and cost summed over completions; cost None once any of them is unpriced."""

    usage: dict[str, int] = field(default_factory=dict)
    cost: float | None = None
    priced: bool = True
    calls: int = 0
    prompt_cache_saved: float | None = None

    def add(self, completion: Completion) -> None:
        priced = completion.cost is not None
        saved = completion.prompt_cache_saved
        self.merge(Bill(completion.usage, completion.cost, priced, 1, saved))

    def merge(self, other: Bill) -> None:
        """Add another bill's calls, as if its completions had been added here."""
        self.calls += other.calls
        add_counts(self.usage, other.usage)
        if other.prompt_cache_saved is not None:
            self.prompt_cache_saved = (self.prompt_cache_saved or 0.0) + other.prompt_cache_saved
        self.priced = self.priced and other.priced
        costs = (self.cost, other.cost)
        self.cost = sum(c or 0.0 for c in costs) if self.priced and self.calls else None


@dataclass
class Asked(Generic[T]):
    """The attempts of one request: paid calls and cache-served ones apart, and the parsed
    reply (`value`, from `completion`) or the last `failure`.

    It is `cached` when no attempt was paid; its `bill` is then the original usage and cost.
    Otherwise the bill is what was paid only, so a total over requests never counts a call
    twice. `messages` are the ones the next attempt sends (a re-ask adds the bad reply);
    `reasks` counts the unusable replies so far (each raises the next attempt's temperature).
    `temperature`: the raised temperature the kept reply came at (None: the judge's own).
    `cut_off`: the kept reply was cut off at its token limit (a per-item reply keeps the
    complete entries it has; this names why the others are missing). `call`: the call that got
    the kept reply (judges/samples.py stores each sample's choice under that call's key, with
    the sample's own request).
    """

    messages: list[dict[str, str]]
    attempts: int = 0
    reasks: int = 0
    temperature: float | None = None
    cut_off: JudgeFailure | None = None
    paid: Bill = field(default_factory=Bill)
    saved: Bill = field(default_factory=Bill)
    value: T | None = None
    completion: Completion | None = None
    call: Call | None = None
    failure: JudgeFailure | None = None

    def add(self, completion: Completion) -> None:
        (self.saved if completion.cached else self.paid).add(completion)

    @property
    def cached(self) -> bool:
        return self.paid.calls == 0 and self.saved.calls > 0

    @property
    def bill(self) -> Bill:
        return self.saved if self.cached else self.paid

    @property
    def reasoning(self) -> str | None:
        return None if self.completion is None else self.completion.reasoning

    def billing(self) -> dict[str, Any]:
        """The vote fields that carry this request's bill."""
        bill = self.bill
        return {
            "usage": bill.usage,
            "cost": bill.cost,
            "cached": self.cached,
            "attempts": self.attempts,
            "prompt_cache_saved": bill.prompt_cache_saved,
        }
