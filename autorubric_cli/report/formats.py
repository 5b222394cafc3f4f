"""How every human-readable output (table, Markdown, JUnit, HTML) writes a figure, and the words
they share: one function per kind of figure, `n/a` for an undefined one (never 0, `-` or None).

The JSON and CSV outputs are data: they keep full precision (`exact`), and CSV leaves an
undefined figure empty. See docs/guides/reports.md, "One vocabulary".
"""

from __future__ import annotations

from typing import Any

# the figures the live progress line writes too (core/figures.py), for every format here
from autorubric_cli.core.figures import UNDEFINED as UNDEFINED
from autorubric_cli.core.figures import dollars as dollars
from autorubric_cli.core.figures import number as number
from autorubric_cli.core.words import plural

PASSED = "PASSED"
FAILED = "FAILED"
ARROW = "→"  # a move between outcomes (`MET→UNMET`), a base and a new experiment
WITH_OUTCOME = "judges w/ outcome"  # a criterion's `agreement`: judges whose answer won
AGREEING_PAIRS = "agreeing pairs"  # `percent_agreement`: pairs of judges answering alike
NOT_ASSESSED = "not assessed"  # a criterion's `cannot_assess_rate`


def not_assessed_note(over: str) -> str:
    """What `not assessed` means, over the rows a table counts (`graded items`, pairs)."""
    return (
        f"{NOT_ASSESSED}: the share of {over} whose outcome is CANNOT_ASSESS (binary) or an "
        "NA option (multi-choice); grader.cannot_assess decides how the score counts them"
    )


NOT_ASSESSED_NOTE = not_assessed_note("graded items")
WITH_OUTCOME_NOTE = (
    f"{WITH_OUTCOME}: the share of judges (one kept sample each, abstentions set aside) "
    "whose answer is the criterion's outcome, mean over items"
)
CRITERIA_CAPTION = f"{NOT_ASSESSED_NOTE}. {WITH_OUTCOME_NOTE}"  # under every criteria table
SIMULATED_NOTE = "These results come from SIMULATED judges, not real models."
SIMULATED_TAG = "simulated judges"
__all__ = ["plural"]  # re-exported: the renderers count things with the one helper


def interval(ci: Any, *, signed: bool = False) -> str:
    """A 95% interval as `[low, high]`; `n/a` when there is none."""
    if not ci:
        return UNDEFINED
    return f"[{number(ci[0], signed=signed)}, {number(ci[1], signed=signed)}]"


def rate(value: float | None) -> str:
    """A rate or share (a met rate, an escalation rate, an agreement, a cost ratio): a fraction
    with three decimals (`0.125`), never a percentage, as the rubric's and the flags'
    thresholds are written (`escalate_below: 0.7`, `--target-agreement 0.9`)."""
    return number(value)


def p_value(value: float | None) -> str:
    """A p-value: three decimals, or scientific notation below 0.001."""
    if value is None:
        return UNDEFINED
    return f"{value:.2e}" if value < 1e-3 else number(float(value))


def gate_word(passed: bool) -> str:
    """A gate or one of its checks: PASSED or FAILED, in every format."""
    return PASSED if passed else FAILED


def arrow(move: str) -> str:
    """A JSON transition key (`MET->UNMET`) as the outputs write it (`MET→UNMET`)."""
    return move.replace("->", ARROW)


def exact(value: float | None) -> str:
    """A figure for a data file (CSV): full precision, empty when undefined."""
    return "" if value is None else repr(value)
