"""Benchmark: which labelling order finds the right judge with fewer human labels
(docs/guides/labels.md).

On `simulate`'s synthetic studies (Guerdan et al. §6; `autorubric_cli/validate/synthetic.py`),
one per seed, a human "labels" items one at a time in each order (`labels.order.rank_items`):
labelling item i reveals its simulated human ratings. After every STEP items, `validate`'s
analysis runs on the items labelled so far and picks the best judge under METRIC. "Needed" is
the number of labelled items after which that pick stayed equal to the population-level best
judge (`truth.json`'s `best`; the ensemble is left out of the pick, as the truth ranks judges
only) for every larger count; a study whose pick is wrong even with every item labelled counts
as N + STEP (and is reported). Also printed: the same count against the pick made with every
item labelled (what the user would conclude after labelling everything).

Prints, per order: the median and mean of "needed", how often it was the smallest of the
orders (ties shared), and the per-seed figures.

    python -m bench.label_order [--seeds 20] [--items 200] [--step 10] [--metric hit_rate]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from dataclasses import replace
from pathlib import Path

from autorubric_cli.experiment.manifest import ITEMS
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.experiment.store import ReadIssues, iter_latest_records
from autorubric_cli.labels.order import ORDERS, rank_items
from autorubric_cli.validate.analysis import validate_collected
from autorubric_cli.validate.collect import collect
from autorubric_cli.validate.settings import ValidateSettings
from autorubric_cli.validate.simulate_files import CRITERION, write_simulation
from autorubric_cli.validate.synthetic import SimulationConfig


def needed(picks: list[tuple[int, str | None]], truth: str, beyond: int) -> int:
    """Labels after which every later pick is the true best judge."""
    answer = beyond
    for count, pick in reversed(picks):
        if pick != truth:
            break
        answer = count
    return answer


def one_study(
    seed: int, items: int, step: int, metric: str, root: Path
) -> dict[str, tuple[int, int]]:
    config = SimulationConfig(n_items=items, seed=seed)
    output = write_simulation(root / f"s{seed}", config)
    truth = output.truth["best"][metric]
    experiment = open_experiment(output.experiment)
    records = list(iter_latest_records(output.experiment / ITEMS, ReadIssues()))
    ratings = {r.id: r.human_ratings for r in records}
    settings = ValidateSettings(beta_sweep=())
    result = {}
    for order in ORDERS:
        ranked = rank_items(records, [CRITERION], order, seed=seed)
        picks = []
        for count in range(step, items + 1, step):
            human = {item.id: ratings[item.id] for item in ranked[:count]}
            collected = collect(experiment.rubric, records, [CRITERION], human)
            # the population truth ranks the judges only: leave the ensemble out of the pick
            collected.criteria = [
                replace(c, judges={j: r for j, r in c.judges.items() if j != collected.ensemble_id})
                for c in collected.criteria
            ]
            analysis = validate_collected(collected, settings)
            picks.append((count, analysis["criteria"][0]["best"].get(metric)))
        full = picks[-1][1]  # every item labelled: the same pick whatever the order
        result[order] = (needed(picks, truth, items + step), needed(picks, full, items + step))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--step", type=int, default=10)
    parser.add_argument("--metric", default="hit_rate")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seeds):
            row = one_study(seed, args.items, args.step, args.metric, Path(tmp))
            rows.append(row)
            cells = "  ".join(f"{o} {row[o][0]:4d} ({row[o][1]:4d})" for o in ORDERS)
            print(f"seed {seed:2d}: {cells}", flush=True)
    print(
        f"\n{args.seeds} synthetic studies x {args.items} items (simulate defaults: 4 judges x 5 "
        f"samples, 3 raters), step {args.step}, best judge by {args.metric}"
    )
    never = args.items + args.step
    for target, name in ((0, "the population's best judge"), (1, "the pick with every item")):
        print(f"labels needed until the pick stays {name} (never: {never}):")
        for order in ORDERS:
            counts = [r[order][target] for r in rows]
            wins = sum(1 for r in rows if r[order][target] == min(v[target] for v in r.values()))
            print(
                f"{order:>14}: median {statistics.median(counts):6.1f}"
                f"  mean {statistics.mean(counts):6.1f}  smallest in {wins:2d}/{len(rows)}"
                f"  never: {sum(c == never for c in counts)}"
            )


if __name__ == "__main__":
    main()
