"""The typed result of `improve` (docs/reference/report-json.md#improve), rendered by every
format from this one model."""

from __future__ import annotations

from autorubric_cli.core.json_model import Block


class Part(Block):
    path: str
    items: int


class Attempt(Block):
    """One criterion in one round: its train accuracy before, the candidate's, and whether
    the candidate was kept (only when it is strictly higher)."""

    round: int
    criterion: str
    before: float | None
    candidate: float | None
    kept: bool
    requirement: str | None  # the candidate's requirement; null when the reviser failed
    explanation: str | None  # the reviser's, or why there is no candidate


class Figures(Block):
    accuracy: float | None
    kappa: float | None


class HeldOut(Block):
    """A criterion on the held-out items: the original and the final wording, paired."""

    name: str
    kind: str
    changed: bool
    n: int
    original: Figures
    final: Figures
    only_original_right: int
    only_final_right: int
    p_value: float | None  # McNemar's exact test of the paired difference
    requirement: str  # the final wording


class ImproveResult(Block):
    """What `improve --format json` prints."""

    rubric: str
    data: str
    improved: str
    diff: str
    labels: str  # "ground_truth" or "ground_truth+human_labels:<DIR>"
    simulated: bool
    target: float
    reviser: str
    rounds: int  # rounds run (fewer than asked when every criterion reached the target)
    train: Part
    test: Part
    attempts: list[Attempt]
    criteria: list[HeldOut]
    errored_items: int  # held-out records with a failed vote (their outcome: CANNOT_ASSESS)
    cost: float | None
    directory: str
