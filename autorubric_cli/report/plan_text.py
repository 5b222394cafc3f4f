"""`autorubric plan` in words (the table format; docs/guides/statistics.md): the counts, where
the standard deviation of the paired differences comes from and what drives it, the pilot, and
the warnings."""

from __future__ import annotations

from autorubric_cli.core.words import plural
from autorubric_cli.report.plan import PlanCluster, PlanResult


def clusters_line(result: PlanResult, c: PlanCluster) -> str:
    icc = "n/a" if c.icc is None else f"{c.icc:.3f}"
    if c.icc is not None and c.icc < 0:
        icc += (
            " (below 0: items of one cluster differ more than chance would make them; counted "
            "as 0, so clustering adds no items)"
        )
    groups = f"{c.key}: {plural(c.clusters, 'cluster')}, ICC {icc}"
    if result.n_items_clustered is None or result.design_effect is None:
        return f"  clustered: undefined ({groups})"
    return (
        f"  {plural(result.n_items_clustered, 'paired item')} with clusters like the pilot's "
        f"({groups}, design effect {result.design_effect:.3f})"
    )


def spread_lines(result: PlanResult) -> list[str]:
    """Where the standard deviation of the paired differences comes from."""
    sd = f"{result.sigma_d:.4f}"
    if result.correlation is None:
        return [f"The standard deviation of the paired differences is {sd}, observed in "
                f"{result.sigma_from}."]  # fmt: skip
    given = "the default" if result.sigma_from == "correlation 0.5" else "--correlation"
    return [
        f"The standard deviation of the paired differences is assumed to be {sd}: the pilot's "
        f"score standard deviation {result.pilot_std:.4f} times sqrt(2·(1 − "
        f"{result.correlation:g})), where {result.correlation:g} is the assumed correlation of "
        f"an item's score between the two runs ({given}).",
        "The count is proportional to 1 − correlation, so this assumption drives the answer: "
        "measure it with --from-compare FILE (a compare --format json of two runs like these) "
        "or give --correlation R.",
    ]


def render_plan_text(result: PlanResult) -> str:
    """The table format: a few plain lines."""
    lines = [
        f"To detect a change of {result.detect:g} in the mean score (two-sided, paired, "
        f"alpha {result.alpha:g}, power {result.power:g}):",
        f"  {plural(result.n_items, 'paired item')}, items independent",
    ]
    if result.cluster is not None:
        lines.append(clusters_line(result, result.cluster))
    lines += spread_lines(result)
    lines.append(f"Pilot: {plural(result.pilot_items, 'scored item')}.")
    lines += [f"warning: {w}" for w in result.warnings]
    return "\n".join(lines) + "\n"
