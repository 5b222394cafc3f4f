"""The pairwise report (docs/reference/report-json.md, "Pairwise report"): one typed model,
computed in one fold over the records (pairwise/fold.py) and rendered by every format.

`pairwise` is an object keyed by pair (`<A>_vs_<B>`) plus `leaderboard`, so that gate paths read
`pairwise.<A>_vs_<B>.win_rate` and `pairwise.leaderboard.<name>.elo`; inside, the pairs are a
list of `PairSummary` (each knows its key) and the leaderboard a model, serialized to that shape.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import model_serializer

from autorubric_cli.core.json_model import Block, absent
from autorubric_cli.report.models import GateResult

Interval = list[float] | None


class WinRateBlock(Block):
    """One question's (or the headline's) tally for a pair, from the first system's side."""

    n: int
    wins: int
    ties: int
    losses: int
    win_rate: float | None
    ci95: Interval
    undefined: dict[str, str] | None = absent()


class LengthControlled(Block):
    """The length-controlled win rate: a number, or null with the reason."""

    win_rate: float | None
    reason: str | None = None


class PairSummary(Block):
    a: str
    b: str
    decided_by: Literal["overall", "rubric"]
    n: int
    wins: int
    ties: int
    losses: int
    win_rate: float | None
    ci95: Interval
    length_controlled: LengthControlled
    overall: WinRateBlock | None
    rubric: WinRateBlock
    criteria: dict[str, WinRateBlock]

    @property
    def key(self) -> str:
        return f"{self.a}_vs_{self.b}"


class Rating(Block):
    rank: int
    elo: float
    ci95: Interval


class PairwiseSection(Block):
    """Serialized as {`<A>_vs_<B>`: pair, ..., `leaderboard`: {name: rating} or null}."""

    pairs: list[PairSummary]
    leaderboard: dict[str, Rating] | None

    @model_serializer(mode="wrap")
    def _keyed(self, handler: Any) -> dict[str, Any]:
        dumped = handler(self)
        out = {pair.key: data for pair, data in zip(self.pairs, dumped["pairs"], strict=True)}
        out["leaderboard"] = dumped["leaderboard"]
        return out


class JudgeBias(Block):
    """A judge's pairwise bias figures: order consistency (both orders shown) and the rate of
    preferring the response shown first among the replies that preferred one."""

    id: str
    replies: int
    errors: int
    order_pairs: int
    order_consistency: float | None
    decided: int
    first_position_rate: float | None
    first_position_p_value: float | None
    usage: dict[str, int]
    cost: float | None


class Counts(Block):
    total: int
    completed: int
    errored: int
    pending: int


class SystemSummary(Block):
    name: str
    kind: Literal["dataset", "experiment"]
    path: str
    items: int


class PairwiseReport(Block):
    experiment: str
    kind: Literal["pairwise"] = "pairwise"
    status: str
    simulated: bool
    swap: Literal["both", "random"]
    systems: list[SystemSummary]
    questions: list[str]
    comparisons: Counts
    pairwise: PairwiseSection
    # why the leaderboard (three or more systems) or its intervals are missing, or what they rest on
    leaderboard_note: str | None
    judges: list[JudgeBias]
    usage: dict[str, int]
    cost: float | None
    usage_saved: dict[str, int]
    cost_saved: float | None
    gate: GateResult | None
    warnings: list[str]
