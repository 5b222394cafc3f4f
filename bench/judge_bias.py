"""Benchmark: the position-bias flag's false-positive rate and power (docs/guides/statistics.md).

The simulated judge (`simulated/...`, param `position_bias`) picks the first option shown with
that probability, so the truth is known. For each seed, a "run" of --items items grades the demo
rubric's multi-choice criteria (clarity, satisfaction, tone): the options are shuffled with the
product's seeded permutation (`core.shuffle.shuffle_order`), the simulated judge's own choice
rule (`SimulatedTransport.shown_choice`, its seeded random stream) picks a shown position, and
the report's test (`metrics.judge_bias.position_tests`) flags the judge at pooled p < 0.001.
Prompts and HTTP are skipped: they do not change which position is chosen.

Prints, per position_bias: the share of seeds flagged (the false-positive rate at 0, expected
about 0.1%; the power otherwise) with its 95% Wilson interval, and the median pooled p-value.

    python -m bench.judge_bias [--seeds 2000] [--items 300] [--power-seeds 200]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from scipy.stats import binomtest

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.shuffle import shuffle_order
from autorubric_cli.judges.prompts import shown_label
from autorubric_cli.judges.transports.simulated import SimulatedTransport, pseudo_truth
from autorubric_cli.loading.rubric_loader import load_rubric
from autorubric_cli.metrics.judge_bias import FLAG_P, position_tests

DEMO = Path(__file__).resolve().parents[1] / "rubrics" / "demo.yaml"
CRITERIA = [c for c in load_rubric(DEMO).criteria if c.options is not None]


def pooled_p(position_bias: float, seed: int, items: int) -> float:
    """One simulated run: the judge's pooled position p-value over the multi-choice criteria."""
    criteria = CRITERIA
    spec = JudgeSpec(
        model="simulated/bench",
        id="bench",
        params={"accuracy": 0.8, "position_bias": position_bias, "seed": seed},
    )
    judge = SimulatedTransport(spec)
    counts = {c.name: np.zeros(len(c.option_list()), dtype=np.int64) for c in criteria}
    for i in range(items):
        item_id = f"s{seed}-i{i}"
        for criterion in criteria:
            options = criterion.option_list()
            order = shuffle_order(seed, item_id, "bench", criterion.name, 0, len(options))
            shown = [shown_label(options[k].label) for k in order]
            rng = judge.rng(item_id, criterion, 0)
            truth = pseudo_truth(item_id, criterion)
            counts[criterion.name][judge.shown_choice(rng, truth, criterion, shown) - 1] += 1
    found = position_tests(counts)
    assert found is not None
    p = found[1].p_value
    return float(p) if isinstance(p, float) else 1.0


def report(position_bias: float, seeds: int, items: int) -> None:
    started = time.perf_counter()
    values = [pooled_p(position_bias, seed, items) for seed in range(seeds)]
    flagged = sum(p < FLAG_P for p in values)
    ci = binomtest(flagged, seeds).proportion_ci(method="wilson")
    what = "false-positive rate" if position_bias == 0 else "power"
    print(
        f"position_bias {position_bias:<4}  {what:<19} {flagged / seeds:7.2%}  "
        f"[{ci.low:.2%}, {ci.high:.2%}]  ({flagged}/{seeds} seeds, {items} items, "
        f"median p {statistics.median(values):.2e}, {time.perf_counter() - started:.1f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=2000, help="seeds at position_bias 0")
    parser.add_argument("--power-seeds", type=int, default=200, help="seeds per biased setting")
    parser.add_argument("--items", type=int, default=300)
    args = parser.parse_args()
    report(0.0, args.seeds, args.items)
    for bias in (0.1, 0.2, 0.35):
        report(bias, args.power_seeds, args.items)


if __name__ == "__main__":
    main()
