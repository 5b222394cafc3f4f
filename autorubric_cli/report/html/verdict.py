"""The headline at the top of the HTML pages: the gate's verdict, each check said in words
(value against its bound), and for the compare page the score difference in words."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from markupsafe import Markup, escape

from autorubric_cli.report.formats import gate_word
from autorubric_cli.report.gate_text import check_sentence
from autorubric_cli.report.models import GateCheckResult, GateResult
from autorubric_cli.report.models_compare import CompareGate, RegressionCheck

ALPHA = 0.05
_CODE = re.compile(r"`([^`\n]+)`")


def inline_code(text: Any) -> Markup:
    """Text with `backticked` spans shown as code: escaped first, so nothing else is HTML."""
    escaped = str(escape("" if text is None else text))
    return Markup(_CODE.sub(r"<code>\1</code>", escaped))


@dataclass(frozen=True)
class Headline:
    state: Literal["passed", "failed", "none"]
    title: str
    checks: list[tuple[bool, str]]  # (passed, the check in words), failed checks first
    note: str = ""  # where the checks come from (`backticks` shown as code)


NO_REPORT_GATE = "The rubric sets no `gate:`, so nothing here passes or fails a CI job."
NO_COMPARE_GATE = (
    "No gate on this comparison: it passes or fails a CI job only with `--max-drop X` or "
    "`--fail-on-regression`. The rubric's `gate:` checks each run in its own report."
)


def compare_gate_note(gate: CompareGate) -> str:
    """Which flags the comparison's checks come from (never the rubric's `gate:`)."""
    flags = sorted({_flag(c) for c in gate.checks})
    return (
        f"Checks from {' and '.join(flags)}; the rubric's `gate:` checks each run in its own "
        "report."
    )


def _flag(check: GateCheckResult | RegressionCheck) -> str:
    return "`--fail-on-regression`" if isinstance(check, RegressionCheck) else "`--max-drop`"


def gate_headline(gate: GateResult | CompareGate | None, compare: bool = False) -> Headline:
    """The verdict the page opens with; `compare`: the compare page's (its gate is the flags')."""
    if gate is None:
        return Headline("none", "No gate", [], NO_COMPARE_GATE if compare else NO_REPORT_GATE)
    checks: list[GateCheckResult | RegressionCheck] = sorted(gate.checks, key=lambda c: c.passed)
    failed = sum(1 for c in checks if not c.passed)
    if gate.passed:
        title = f"Gate {gate_word(True)}: {len(checks)} of {len(checks)} checks"
    else:
        title = f"Gate {gate_word(False)}: {failed} of {len(checks)} checks failed"
    rows = [(c.passed, check_sentence(c)) for c in checks]
    note = compare_gate_note(gate) if isinstance(gate, CompareGate) and compare else ""
    return Headline("passed" if gate.passed else "failed", title, rows, note)
