"""A comparison in words, defined once for the table, Markdown, JUnit and HTML outputs
(docs/guides/compare.md, "What it says").

Three things, in this order, and never two that contradict each other:

- the finding: the direction and size of the difference, its 95% interval, the p-value of the
  test the comparison rests on (the clustered one with a cluster key, as `--fail-on-regression`
  uses, else Wilcoxon's) and whether it is significant at `--alpha`;
- the basis: which interval and test, and how many clusters they rest on;
- only when the difference is not significant, what the comparison could have detected
  (`mde80`): "too few items to tell" when the difference is below it. A significant difference
  was detected, so the smallest detectable one is not printed beside it (it stays in the JSON,
  and `autorubric plan` sizes the next comparison).
"""

from __future__ import annotations

from typing import Literal

from autorubric_cli.core.words import plural
from autorubric_cli.report.formats import interval, number, p_value
from autorubric_cli.report.models_compare import CompareResult, ScoreComparison

TOO_FEW = "too few items to tell"
Test = Literal["wilcoxon", "clustered"]


def deciding_test(score: ScoreComparison) -> tuple[Test, float | None]:
    """The test the comparison rests on and its p-value: clustered with a cluster key."""
    if score.clustered is not None:
        return "clustered", score.clustered.p_value
    return "wilcoxon", score.p_value


def level(alpha: float) -> str:
    return "the 5% level" if alpha == 0.05 else f"alpha {alpha:g}"


def finding(score: ScoreComparison) -> str:
    """The score difference in words: direction, size, 95% CI and what the p-value says."""
    diff = score.diff
    if diff is None:
        return "No paired item: nothing to compare."
    test, p = deciding_test(score)
    if diff == 0:
        text = "NEW scores the same as BASE on average"
    else:
        direction = "higher" if diff > 0 else "lower"
        text = f"NEW scores {direction} than BASE by {number(diff, signed=True)} on average"
    ci = score.ci95 if score.clustered is None else score.clustered.ci95
    if ci:
        low, high = (number(end, signed=True) for end in ci)
        text += f" (95% CI {low} to {high})"
    name = "Wilcoxon p" if test == "wilcoxon" else "clustered p"
    if p is None:
        why = score.undefined.get("p_value", "undefined") if test == "wilcoxon" else "undefined"
        return f"{text}; no p-value: {why}."
    if p < score.alpha:
        return f"{text}; {name} = {p_value(p)}: a significant difference at {level(score.alpha)}."
    return (
        f"{text}; {name} = {p_value(p)}: not significant at {level(score.alpha)} (could be chance)."
    )


def basis(score: ScoreComparison) -> str:
    """Which interval and test the comparison rests on, and on how many clusters."""
    c = score.clustered
    if c is None:
        return (
            f"items treated as independent: paired bootstrap 95% CI, Wilcoxon test, "
            f"se {number(score.se_diff, 4)}"
        )
    return (
        f"clustered by {c.key}, {plural(c.clusters, 'cluster')}: 95% CI {interval(c.ci95)}, "
        f"p = {p_value(c.p_value)} (normal), se {number(c.se, 4)}"
    )


def power_advice(score: ScoreComparison) -> str | None:
    """What the comparison could detect, said only when a test found the difference not
    significant (with no p-value, e.g. all differences zero, there is no test to size)."""
    _, p = deciding_test(score)
    if score.diff is None or p is None or p < score.alpha:
        return None
    mde = score.clustered.mde80 if score.clustered is not None else score.mde80
    if mde is None:
        return None
    where = "" if score.clustered is None else f" on {plural(score.clustered.clusters, 'cluster')}"
    if score.below_mde80:
        return (
            f"{TOO_FEW}: the difference {score.diff:+.4f} is below {mde:.4f}, the smallest this "
            f"comparison detects with 80% power{where} (`autorubric plan` sizes the next one)"
        )
    return (
        f"not significant, though this comparison detects a true difference of {mde:.4f} with "
        f"80% power{where}"
    )


def compare_lines(result: CompareResult) -> list[str]:
    """The basis, then the power advice when there is one (the finding is the headline)."""
    advice = power_advice(result.score)
    return [basis(result.score), *([] if advice is None else [advice])]
