"""Time the item bootstrap: 1,000 resamples of 10,000 items (target: under 2 s).

Runs the four figures the report resamples (accuracy, Cohen's kappa, score Pearson and
RMSE) on one set of seeded resamples and prints the median of three timed runs.

    python -m bench.metrics_bootstrap
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from autorubric_cli.metrics.bootstrap import (
    accuracy_statistic,
    bootstrap_replicates,
    kappa_statistic,
    percentile_interval,
    score_statistics,
)

N_ITEMS = 10_000
N_RESAMPLES = 1_000
RUNS = 3


def main() -> None:
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, N_ITEMS)
    pred = np.where(rng.random(N_ITEMS) < 0.85, truth, 1 - truth)
    truth_scores = rng.random(N_ITEMS)
    judge_scores = truth_scores + rng.normal(0, 0.2, N_ITEMS)
    judge_scores[rng.random(N_ITEMS) < 0.05] = np.nan
    items = np.arange(N_ITEMS)
    timings = []
    for _ in range(RUNS):
        start = time.perf_counter()
        stats = {
            "accuracy": accuracy_statistic(N_ITEMS, items, truth == pred),
            "cohen_kappa": kappa_statistic(N_ITEMS, items, truth, pred, 2),
            **score_statistics(judge_scores, truth_scores),  # pearson, rmse
        }
        replicates = bootstrap_replicates(stats, N_ITEMS, N_RESAMPLES, seed=0)
        intervals = {name: percentile_interval(values) for name, values in replicates.items()}
        timings.append(time.perf_counter() - start)
    median = statistics.median(timings)
    print(f"bootstrap: {N_RESAMPLES} resamples x {N_ITEMS} items, 4 figures")
    for name, interval in intervals.items():
        print(f"  {name:12s} 95% CI {interval}")
    print(f"runs: {', '.join(f'{t:.3f}s' for t in timings)}; median {median:.3f}s (target < 2 s)")


if __name__ == "__main__":
    main()
