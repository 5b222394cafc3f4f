"""How sure the numbers are, in words and rows every format shares: which interval is shown
and on how many clusters it rests, what a comparison could detect, and the judge-bias rows."""

from __future__ import annotations

from autorubric_cli.report.formats import UNDEFINED, interval, number, p_value, plural
from autorubric_cli.report.models import CriterionSummary, Report, ScoreSummary
from autorubric_cli.report.models_stats import JudgeBias, LengthCorrelation

BIAS_COLUMNS = [
    *("judge", "1st position (expected)", "position p", "order consistency"),
    *("length ρ (p)", "self-preference"),
]
BIAS_TITLE = "Judge bias"


def shown_ci(score: ScoreSummary) -> list[float] | None:
    """The interval the tables show: the clustered one where it exists."""
    return score.clustered.ci95 if score.clustered is not None else score.ci95


CLIP_MEAN_NOTE = (
    "clip: mean: item scores are unclamped (median, std, min and max describe them); the mean and "
    "its interval are clamped to [0, 1]"
)


def interval_note(score: ScoreSummary) -> str:
    """Which 95% interval the summary shows, and what it rests on."""
    se = f"se {number(score.se, 4)}"
    clip = f"; {CLIP_MEAN_NOTE}" if score.clip == "mean" else ""
    if score.clustered is None:
        return f"95% CI: bootstrap over {plural(score.n, 'item')} ({se}, items independent){clip}"
    c = score.clustered
    return (
        f"95% CI: clustered by {c.key}, {plural(c.clusters, 'cluster')} "
        f"(clustered se {number(c.se, 4)}; "
        f"bootstrap over items, as if independent: {interval(score.ci95)}, {se}){clip}"
    )


def criterion_ci(c: CriterionSummary) -> str:
    if c.clustered is None:
        return UNDEFINED
    return f"{interval(c.clustered.ci95)} ({plural(c.clustered.clusters, 'cluster')})"


def has_clustered_criteria(report: Report) -> bool:
    return any(c.clustered is not None for c in report.criteria)


def correlation_cell(figures: LengthCorrelation | None) -> str:
    if figures is None:
        return UNDEFINED
    return f"{number(figures.rho)} ({p_value(figures.p_value)})"


def position_cells(bias: JudgeBias) -> list[str]:
    if bias.position is None:
        return [UNDEFINED, UNDEFINED]
    pooled = bias.position.pooled
    flag = " FLAGGED" if bias.position.flagged else ""
    return [
        f"{number(pooled.first_rate)} ({number(pooled.first_expected)})",
        f"{p_value(pooled.p_value)}{flag}",
    ]


def length_cell(bias: JudgeBias) -> str:
    if bias.length is None:
        return UNDEFINED
    cell = correlation_cell(bias.length)
    if bias.length.beyond_truth is not None:
        cell += f"; beyond labels {correlation_cell(bias.length.beyond_truth)}"
    return cell


def bias_row(judge: str, bias: JudgeBias) -> list[str]:
    consistency = bias.order_consistency
    own = bias.self_preference
    own_cell = UNDEFINED
    if own is not None:
        difference = number(own.difference, signed=True)
        own_cell = f"{difference} {interval(own.ci95)} on {plural(own.n_own, own.model + ' item')}"
    return [
        judge,
        *position_cells(bias),
        UNDEFINED
        if consistency is None
        else f"{number(consistency.rate)} of {plural(consistency.pairs, 'pair')}",
        length_cell(bias),
        own_cell,
    ]


def bias_rows(report: Report) -> list[list[str]]:
    if report.judge_bias is None:
        return []
    return [bias_row(judge, bias) for judge, bias in report.judge_bias.items()]


BIAS_NOTE = (
    "position: chosen options by shown position against the uniform (options are shuffled "
    "per vote), flagged at pooled p < 0.001; length: Spearman's ρ of the judge's item score "
    "with output words; beyond labels: Spearman's ρ of (the judge's item score − the labels' "
    "score) with output words, a judge rewarding length more than the labels do"
)
