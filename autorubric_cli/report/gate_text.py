"""A gate check in words, shared by the JUnit test cases, the tables and the HTML headline:
its name (metric and bounds, so two checks of one metric differ) and its sentence (value
against its bound), numbers written by `formats`."""

from __future__ import annotations

from autorubric_cli.report.formats import number, p_value
from autorubric_cli.report.models import GateCheckResult
from autorubric_cli.report.models_compare import RegressionCheck


def check_name(check: GateCheckResult | RegressionCheck) -> str:
    """`score.mean min 0.500`, `score.max max 0.100`, `score.regression alpha 0.05`."""
    if isinstance(check, RegressionCheck):
        return f"{check.metric} alpha {check.alpha:g}"
    bounds = (("min", check.min), ("max", check.max))
    return " ".join([check.metric, *(f"{side} {number(b)}" for side, b in bounds if b is not None)])


def check_sentence(check: GateCheckResult | RegressionCheck) -> str:
    """One gate check as a sentence: what was measured, its value, the bound it was held to."""
    metric, value = check.metric, check.value
    if isinstance(check, RegressionCheck):
        if value is None:
            return f"regression test: {check.reason or 'undefined'}"
        worse = (check.diff or 0.0) < 0
        seen = "worse" if worse else "not worse"
        rule = f"fails when worse and p < {check.alpha:g}"
        name = "clustered p" if check.test == "clustered" else "Wilcoxon p"
        return f"regression test: NEW is {seen}, {name} = {p_value(value)} ({rule})"
    if value is None:
        return f"{metric} is undefined ({check.reason or 'no value'})"
    low, high = check.min, check.max
    parts = []
    if low is not None:
        parts.append(f"{'≥' if value >= low else '<'} min {number(low)}")
    if high is not None:
        parts.append(f"{'≤' if value <= high else '>'} max {number(high)}")
    return f"{metric} = {number(value)} " + " and ".join(parts)
