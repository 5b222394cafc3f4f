"""The `--dry-run` bill as typed values: what one call costs, and the lines they add up to.

`experiment/dry_run.py` prices each call (a `CallBill`) and adds it to a `Bill`; `Bill.to_json`
is the bill `run --dry-run -f json` prints (docs/guides/cache-and-cost.md).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from autorubric_cli.core.rubric import Rubric

ITEM_CRITERIA = "(item criteria)"
"""The bill line of the items' own criteria (docs/reference/dataset-files.md), one per judge:
every item has its own, so they are billed together."""


@dataclass(frozen=True)
class PrefixBill:
    """Prompt tokens of one call estimated to be read from / written to a provider's cache."""

    read: int = 0
    written: int = 0


@dataclass(frozen=True)
class CallBill:
    """One call: served by the call cache (`hit`, then free), or its estimated tokens and cost
    (None: a model litellm does not price)."""

    hit: bool
    prompt: int = 0
    completion: int = 0
    cost: float | None = 0.0
    prefix: PrefixBill = PrefixBill()


@dataclass
class Line:
    """Calls of one judge (and criterion): how many, how many cached, and the estimate; its
    fields, in this order, are the bill's line keys."""

    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens_estimate: int = 0
    cost_estimate: float | None = 0.0
    cached_prompt_tokens: int = 0
    cache_write_tokens: int = 0

    def add(self, call: CallBill) -> None:
        self.calls += 1
        if call.hit:
            self.cached += 1
            return
        self.cached_prompt_tokens += call.prefix.read
        self.cache_write_tokens += call.prefix.written
        self.prompt_tokens += call.prompt
        self.completion_tokens_estimate += call.completion
        if call.cost is None or self.cost_estimate is None:
            self.cost_estimate = None
        else:
            self.cost_estimate += call.cost


@dataclass
class Bill:
    """The lines of a bill: the total, one per judge, one per (judge, criterion), in the
    rubric's order."""

    total: Line = field(default_factory=Line)
    by_judge: dict[str, Line] = field(default_factory=dict)
    by_pair: dict[tuple[str, str], Line] = field(default_factory=dict)

    @classmethod
    def empty(cls, rubric: Rubric) -> Bill:
        judges = [j.judge_id for j in rubric.grader.judges]
        return cls(
            by_judge={j: Line() for j in judges},
            by_pair={(j, c.name): Line() for j in judges for c in rubric.criteria},
        )

    def add(self, judge_id: str, criterion: str, call: CallBill) -> None:
        """One call of a judge, billed on the line of `criterion` (or `ITEM_CRITERIA`)."""
        pair = self.by_pair.get((judge_id, criterion))
        if pair is None:  # the first call of an item's own criteria
            pair = self.by_pair[judge_id, criterion] = Line()
        for line in (self.total, self.by_judge[judge_id], pair):
            line.add(call)

    def to_json(self) -> dict[str, Any]:
        """The bill as `--dry-run -f json` prints it."""
        total = self.total
        return {
            "calls": {
                "total": total.calls,
                "cached": total.cached,
                "to_send": total.calls - total.cached,
            },
            "judges": [{"id": j, **asdict(line)} for j, line in self.by_judge.items()],
            "criteria": [
                {"judge": j, "criterion": c, **asdict(line)}
                for (j, c), line in self.by_pair.items()
            ],
            "prompt_tokens": total.prompt_tokens,
            "completion_tokens_estimate": total.completion_tokens_estimate,
            "cost_estimate": total.cost_estimate,
        }
