"""Benchmark: the adaptive limit's policy alone, on servers that queue and on providers that
scale, in a discrete-event simulation (tests/support/queueing_sim.py: a fake clock, no sleeps,
so the figures do not depend on the machine's load).

Each call takes a lognormal time at the server (mean `--mean` s; its spread, the coefficient of
variation, per scenario). Side by side, for `fixed 2` (two in flight), `adaptive` (as it is)
and `refusals only` (the limit blind to latency: the policy before judges/policy/queueing.py),
median over --seeds: calls per second, the median call latency, and the mean limit over the
second half of the calls; for the providers that scale, the throughput against refusals-only
(which holds its maximum in flight there, all served at once) shows what the latency watch
costs them.

    python -m bench.queueing_policy [--seeds 12] [--mean 1.7] [--maximum 16]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from collections.abc import Callable

from autorubric_cli.judges.policy.adaptive import AdaptiveLimit
from tests.support.queueing_sim import Clock, RefusalsOnly, Simulation, simulate

# (name, server slots (None: scales), calls, latency spread)
SCENARIOS: tuple[tuple[str, int | None, int, float], ...] = (
    ("one slot, 80 calls", 1, 80, 0.2),
    ("one slot, 400 calls", 1, 400, 0.2),
    ("four slots, 400 calls", 4, 400, 0.3),
    ("scales, spread 0.5", None, 2000, 0.5),
    ("scales, spread 1.0", None, 2000, 1.0),
)


def variants(maximum: int) -> dict[str, Callable[[Clock], AdaptiveLimit]]:
    return {
        "fixed 2": lambda clock: AdaptiveLimit(2, adaptive=False, clock=clock),
        "adaptive": lambda clock: AdaptiveLimit(maximum, clock=clock),
        "refusals only": lambda clock: RefusalsOnly(maximum, clock=clock),
    }


def lognormal(rng: random.Random, mean: float, spread: float) -> Callable[[], float]:
    sigma = math.sqrt(math.log(1 + spread * spread))
    mu = math.log(mean) - sigma * sigma / 2
    return lambda: rng.lognormvariate(mu, sigma)


def figures(run: Simulation) -> tuple[float, float, float]:
    half = run.limits[len(run.limits) // 2 :]
    return len(run.latencies) / run.end, statistics.median(run.latencies), statistics.mean(half)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=12)
    parser.add_argument("--mean", type=float, default=1.7, help="seconds a call takes, mean")
    parser.add_argument("--maximum", type=int, default=16, help="max_concurrency (default 16)")
    args = parser.parse_args()
    print(
        f"calls of {args.mean:g} s mean at the server (lognormal), max_concurrency "
        f"{args.maximum}; median of {args.seeds} seeds"
    )
    for name, slots, calls, spread in SCENARIOS:
        print(f"{name}:")
        rates: dict[str, float] = {}
        for variant, make in variants(args.maximum).items():
            runs = [
                figures(
                    simulate(make, slots, calls, lognormal(random.Random(seed), args.mean, spread))
                )
                for seed in range(args.seeds)
            ]
            rate, latency, limit = (statistics.median(r[i] for r in runs) for i in range(3))
            rates[variant] = rate
            print(
                f"  {variant:>13}: {rate:6.2f} calls/s, latency median {latency:6.2f} s, "
                f"limit {limit:5.1f} (second half, mean)"
            )
        if slots is None:
            print(f"  adaptive / refusals only: {rates['adaptive'] / rates['refusals only']:.3f}")


if __name__ == "__main__":
    main()
