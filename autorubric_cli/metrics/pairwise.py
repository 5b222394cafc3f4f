"""Pairwise figures (docs/guides/pairwise.md): win rates, the Bradley–Terry leaderboard on the
Elo scale, the length-controlled win rate. numpy in, floats (or Undefined with the reason) out.

An outcome is the first system's: a win 1, a tie 0.5, a loss 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from autorubric_cli.metrics.bootstrap import resample_counts
from autorubric_cli.metrics.figures import BoolArray, Figure, FloatArray, IntArray, Undefined
from autorubric_cli.metrics.mean_ci import SCORE_PLAN, SCORE_RESAMPLES, bootstrap_mean_ci

ELO_SCALE = 400.0 * math.log10(math.e)
"""Elo points per unit of Bradley–Terry strength (natural log odds)."""
ELO_BASE = 1000.0
TOLERANCE = 1e-10
MAX_NEWTON = 100
Interval = tuple[float, float]


@dataclass(frozen=True)
class WinRate:
    wins: int
    ties: int
    losses: int
    win_rate: Figure
    ci95: Interval | Undefined


def win_rate(outcomes: FloatArray, seed: int) -> WinRate:
    """Wins, ties and losses; the win rate (ties count half) and its seeded percentile bootstrap
    interval over the outcomes in the order given (1,000 resamples of the items)."""
    outcomes = np.asarray(outcomes, dtype=np.float64)
    wins, losses = int((outcomes == 1.0).sum()), int((outcomes == 0.0).sum())
    ties = int(outcomes.size) - wins - losses
    if outcomes.size == 0:
        none = Undefined("no item compared")
        return WinRate(0, 0, 0, none, none)
    interval = bootstrap_mean_ci(outcomes, seed, SCORE_RESAMPLES, SCORE_PLAN)
    ci = interval if isinstance(interval, Undefined) else (interval.low, interval.high)
    return WinRate(wins, ties, losses, float(outcomes.mean()), ci)


# -- Bradley–Terry ------------------------------------------------------------------------


def item_wins(
    n_systems: int, first: IntArray, second: IntArray, outcomes: FloatArray, items: IntArray
) -> FloatArray:
    """(items, n·n): per item, the comparisons system i won against j (flattened i·n + j), a tie
    half a win each way; a resample's win matrices are its item counts times this."""
    n_items = int(items.max()) + 1 if items.size else 0
    cells = np.zeros((n_items, n_systems * n_systems))
    np.add.at(cells, (items, first * n_systems + second), outcomes)
    np.add.at(cells, (items, second * n_systems + first), 1.0 - outcomes)
    return cells


def separated(wins: FloatArray) -> BoolArray:
    """Per win matrix (..., n, n): no finite maximum-likelihood strengths, because some set of
    systems never won (not even half a win) against the others, or not every system meets every
    other through a chain of comparisons."""
    n = wins.shape[-1]
    reach: BoolArray = np.asarray((wins > 0) | np.eye(n, dtype=bool))
    for k in range(n):  # transitive closure: i reaches j through wins
        reach = np.asarray(reach | (reach[..., :, [k]] & reach[..., [k], :]))
    return np.asarray(~reach.all(axis=(-2, -1)), dtype=bool)


def log_likelihood(wins: FloatArray, beta: FloatArray) -> FloatArray:
    diff = beta[..., :, None] - beta[..., None, :]
    total: FloatArray = -(wins * np.logaddexp(0.0, -diff)).sum(axis=(-2, -1))
    return total


def newton_strengths(wins: FloatArray) -> FloatArray:
    """Maximum-likelihood β (mean 0) of P(i beats j) = 1 / (1 + exp(β_j − β_i)) for a stack
    of win matrices (r, n, n) that all have one: Newton's method on β_1..β_{n−1} (β_0 = 0),
    halving a step until the likelihood does not fall; NaN rows where it does not converge."""
    r, n, _ = wins.shape
    games = wins + np.swapaxes(wins, -1, -2)
    beta = np.zeros((r, n))
    done = np.zeros(r, dtype=bool)
    for _ in range(MAX_NEWTON):
        p = 1.0 / (1.0 + np.exp(-(beta[:, :, None] - beta[:, None, :])))
        gradient = (wins - games * p).sum(axis=2)
        curvature = games * p * (1.0 - p)
        hessian = curvature - np.eye(n) * curvature.sum(axis=2)[:, :, None]
        step = np.zeros((r, n))
        step[:, 1:] = np.linalg.solve(-hessian[:, 1:, 1:], gradient[:, 1:, None])[..., 0]
        step[done] = 0.0
        before = log_likelihood(wins, beta)
        scale = np.ones(r)
        for _ in range(30):
            worse = log_likelihood(wins, beta + scale[:, None] * step) < before - 1e-12
            if not worse.any():
                break
            scale[worse] /= 2.0
        beta = beta + scale[:, None] * step
        done |= np.max(np.abs(step), axis=1) < TOLERANCE
        if done.all():
            break
    beta[~done] = np.nan
    centred: FloatArray = beta - beta.mean(axis=1, keepdims=True)
    return centred


def bradley_terry(wins: FloatArray) -> FloatArray | Undefined:
    """Maximum-likelihood strengths (mean 0) of one win matrix; Undefined when it has none."""
    if wins.shape[0] < 2:
        return Undefined("fewer than two systems")
    if separated(wins):
        return Undefined(
            "a system won (or lost) every comparison with the others it met: no finite rating"
        )
    beta = newton_strengths(wins[None])[0]
    return beta if np.all(np.isfinite(beta)) else Undefined("the fit did not converge")


def elo(beta: FloatArray) -> FloatArray:
    """Strengths on the Elo scale: `1000 + 400·log10(e)·(β − mean β)`."""
    rated: FloatArray = ELO_BASE + ELO_SCALE * (beta - beta.mean(axis=-1, keepdims=True))
    return rated


@dataclass(frozen=True)
class Ratings:
    elo: list[float] | Undefined
    ci95: list[Interval | Undefined]
    unfitted_resamples: int


def leaderboard(
    n_systems: int,
    comparisons: tuple[IntArray, IntArray, FloatArray, IntArray],
    seed: int,
    resamples: int = SCORE_RESAMPLES,
) -> Ratings:
    """Elo ratings and their seeded percentile bootstrap intervals. `comparisons`: (first
    system, second system, outcome, item) per comparison, items numbered 0.. in dataset order;
    a resample draws items, and every comparison of a drawn item counts as often as it is
    drawn. Resamples with no finite fit are left out and counted; when they are more than 2.5%
    of the resamples an interval's end is unbounded, and the intervals are undefined."""
    first, second, outcomes, items = comparisons
    cells = item_wins(n_systems, first, second, outcomes, items)
    shape = (n_systems, n_systems)
    fitted = bradley_terry(cells.sum(axis=0).reshape(shape))
    if isinstance(fitted, Undefined):
        return Ratings(fitted, [fitted] * n_systems, 0)
    rng = np.random.default_rng(seed)
    wins = (resample_counts(rng, resamples, cells.shape[0]) @ cells).reshape(-1, *shape)
    fits = np.full((resamples, n_systems), np.nan)
    fittable = ~separated(wins)
    if fittable.any():
        fits[fittable] = elo(newton_strengths(wins[fittable]))
    finite = fits[np.isfinite(fits).all(axis=1)]
    failed = resamples - finite.shape[0]
    if failed > 0.025 * resamples:
        reason = Undefined(
            f"{failed} of {resamples} resamples have no finite rating (a system won or lost "
            "every comparison in them): the interval is unbounded"
        )
        return Ratings(elo(fitted).tolist(), [reason] * n_systems, failed)
    low, high = np.percentile(finite, [2.5, 97.5], axis=0)
    ci: list[Interval | Undefined] = [(float(a), float(b)) for a, b in zip(low, high, strict=True)]
    return Ratings(elo(fitted).tolist(), ci, failed)


# -- the length-controlled win rate ---------------------------------------------------------


def length_rows(
    outcomes: FloatArray, word_diffs: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray] | Undefined:
    """(x, y, weight) rows of the length model: x = tanh(diff / sd) with sd the standard
    deviation (ddof 1) of the differences; a win is y 1, a loss y 0, a tie two half rows."""
    n = outcomes.size
    if n < 2:
        return Undefined("fewer than two items compared")
    sd = float(np.std(word_diffs, ddof=1))
    if not math.isfinite(sd) or sd == 0.0:
        return Undefined("every item has the same length difference (sd 0): no length term")
    x = np.tanh(word_diffs / sd)
    ties = outcomes == 0.5
    xs = np.concatenate([x[~ties], x[ties], x[ties]])
    ys = np.concatenate([outcomes[~ties], np.ones(ties.sum()), np.zeros(ties.sum())])
    weights = np.concatenate([np.ones((~ties).sum()), np.full(2 * ties.sum(), 0.5)])
    return xs, ys, weights


def length_separation(x: FloatArray, y: FloatArray) -> str | None:
    """Why a logistic fit of y on (1, x) has no finite maximum, or None when it has one."""
    won, lost = x[y == 1.0], x[y == 0.0]
    if lost.size == 0:
        return "the first system won every comparison: the fit has no finite intercept"
    if won.size == 0:
        return "the first system lost every comparison: the fit has no finite intercept"
    if won.min() >= lost.max() or lost.min() >= won.max():
        return "wins and losses are separated by the length difference: the fit diverges"
    return None


def length_controlled(outcomes: FloatArray, word_diffs: FloatArray) -> Figure:
    """AlpacaEval 2's length-controlled win rate, with the length term only: the logistic
    regression of the outcome on an intercept and tanh((words_A − words_B) / sd), weighted, read
    at no length difference: sigmoid(intercept). Undefined, with the reason, when no finite fit
    exists; never NaN."""
    outcomes = np.asarray(outcomes, dtype=np.float64)
    rows = length_rows(outcomes, np.asarray(word_diffs, dtype=np.float64))
    if isinstance(rows, Undefined):
        return rows
    x, y, weights = rows
    problem = length_separation(x, y)
    if problem is not None:
        return Undefined(problem)
    intercept = logistic_intercept(x, y, weights)
    if intercept is None:
        return Undefined("the fit did not converge")
    return float(1.0 / (1.0 + math.exp(-intercept)))


def logistic_intercept(x: FloatArray, y: FloatArray, weights: FloatArray) -> float | None:
    """The intercept of the weighted maximum-likelihood logistic regression of y on (1, x), by
    Newton's method with step halving; None when it does not converge."""
    design = np.column_stack([np.ones_like(x), x])
    coef = np.zeros(2)
    for _ in range(100):
        mu = 1.0 / (1.0 + np.exp(-(design @ coef)))
        gradient = design.T @ (weights * (y - mu))
        hessian = (design * (weights * mu * (1.0 - mu))[:, None]).T @ design
        try:
            step = np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            return None
        coef = coef + step
        if np.max(np.abs(step)) < 1e-12:
            break
    else:
        return None
    return float(coef[0]) if np.all(np.isfinite(coef)) else None


# -- position bias ----------------------------------------------------------------------


def first_position_p_value(first: int, decided: int) -> Figure:
    """The two-sided exact binomial test of choosing the first shown response against 1/2,
    among the replies that preferred one (scipy's `binomtest`)."""
    if decided == 0:
        return Undefined("no reply preferred one response")
    return float(stats.binomtest(first, decided, 0.5).pvalue)


def shares(counts: Sequence[int], total: int, reason: str) -> list[Figure]:
    return [count / total if total else Undefined(reason) for count in counts]
