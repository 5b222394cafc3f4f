"""The run's spend cap as the call path sees it (`--max-cost`, `grader.max_cost`;
docs/reference/exit-codes.md).

Before a paid call is sent (after the call cache, inside the judge's concurrency slot), its cost
is estimated and the call is admitted when what was paid, plus the estimates of the calls in
flight, plus its own estimate stays within the cap. When it would not, the call waits for calls
in flight to end (their real cost replaces their estimate) and is asked again; once nothing is
in flight and it still would not fit, `BudgetReached` is raised and the call is not sent. So
concurrency narrows near the cap, and the run stops less than one call's estimate short of it.
Calls served by the call cache (docs/guides/cache-and-cost.md) cost nothing and are never counted.

The estimate of a call: before any call of the judge has ended, a price-sheet estimate (its
characters / 4 as input tokens at the full input price, x1.25 when an Anthropic cache write may
be in it, plus `COMPLETION_ESTIMATE` output tokens, or `max_tokens`); after, the largest cost a
call of that judge has had in this session (with prompt caching, the call that wrote the
prefix).

The experiment layer owns the cap (it knows what earlier sessions paid) and decides what a stop
means for the run (`experiment.session`); litellm is needed only for prices, at call time.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from autorubric_cli.core.config import JudgeSpec, LLMConfig
from autorubric_cli.errors import AutorubricError, InputError
from autorubric_cli.judges.prompt_caching import CHARS_PER_TOKEN, caching_kind
from autorubric_cli.judges.transports.litellm import load_litellm
from autorubric_cli.judges.transports.simulated import is_simulated

COMPLETION_ESTIMATE = 300
CAP_TOLERANCE = 1e-12  # float sums: a call that lands exactly on the cap is admitted


class BudgetReached(AutorubricError):
    """A call was not sent: its estimated cost would take the run past its spend cap. The
    runner turns it into `BudgetStop`; it never reaches the CLI itself."""


@dataclass(frozen=True)
class TokenPrices:
    """USD per input token and per output token, from litellm's price list."""

    input: float
    output: float


def model_prices(model: str) -> TokenPrices | None:
    """litellm's prices for a model, None when it has none."""
    try:
        info = load_litellm().get_model_info(model)
    except Exception:  # litellm raises for a model it does not know
        return None
    prompt, completion = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    if not prompt and not completion:
        return None
    return TokenPrices(input=float(prompt or 0), output=float(completion or 0))


def check_priced(config: LLMConfig, key: str = "grader.max_cost") -> None:
    """A spend cap needs every judge's price: an InputError naming the first unpriced one."""
    if config.max_cost is None:
        return
    for spec in config.judges:
        if not is_simulated(spec.model) and model_prices(spec.model) is None:
            raise InputError(
                f"judge {spec.judge_id!r} (model {spec.model}) has no price in litellm's price "
                "list, so a spend cap cannot be kept; drop --max-cost / grader.max_cost or use a "
                "priced model",
                key=key,
            )


@dataclass
class SpendCap:
    """What was paid and what is in flight, against `cap` (USD)."""

    cap: float
    spent: float = 0.0
    reserved: float = 0.0
    largest: dict[str, float] = field(default_factory=dict)
    prices: dict[str, TokenPrices | None] = field(default_factory=dict)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def estimate(self, spec: JudgeSpec, messages: list[dict[str, Any]]) -> float:
        if is_simulated(spec.model):
            return 0.0
        if spec.judge_id in self.largest:
            return self.largest[spec.judge_id]
        if spec.model not in self.prices:
            self.prices[spec.model] = model_prices(spec.model)
        prices = self.prices[spec.model] or TokenPrices(input=0.0, output=0.0)
        chars = sum(len(str(m.get("content", ""))) for m in messages)
        write = 1.25 if caching_kind(spec) == "explicit" else 1.0
        prompt = chars / CHARS_PER_TOKEN * prices.input * write
        completion = (spec.max_tokens or COMPLETION_ESTIMATE) * prices.output
        return prompt + completion

    def fits(self, estimate: float, in_flight: float) -> bool:
        return self.spent + in_flight + estimate <= self.cap + CAP_TOLERANCE

    async def admit(self, spec: JudgeSpec, messages: list[dict[str, Any]]) -> float:
        """Reserve the call's estimate, waiting for calls in flight while it does not fit;
        BudgetReached (the call is not sent) when it cannot fit even with none in flight."""
        estimate = self.estimate(spec, messages)
        while not self.fits(estimate, self.reserved):
            if self.reserved <= CAP_TOLERANCE or not self.fits(estimate, 0.0):
                raise BudgetReached(f"budget of ${self.cap:,.2f} reached")
            changed = self.changed
            await changed.wait()
            estimate = self.estimate(spec, messages)
        self.reserved += estimate
        return estimate

    def settle(self, spec: JudgeSpec, reserved: float, cost: float | None) -> None:
        """The call ended: release its reservation and count what it cost."""
        self.reserved -= reserved
        paid = cost or 0.0
        self.spent += paid
        self.largest[spec.judge_id] = max(self.largest.get(spec.judge_id, 0.0), paid)
        self.changed.set()  # wake the calls waiting for room; later waiters get a new event
        self.changed = asyncio.Event()
