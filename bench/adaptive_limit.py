"""Benchmark: the adaptive limit alone against a provider that refuses above N calls in flight.

`bench/rate_limit.py` measures a whole run through litellm, so on a busy machine its figure is
the client's CPU as much as the limit. This one measures the limit's policy only: calls are
asyncio sleeps of the given latency (jittered ±10%), a call that arrives while N are in flight
is refused at once and retried after the retry hint, and the run is configured for 64 in flight
(as `bench/rate_limit.py`). Prints, median of --runs, the time against the ideal (calls x
latency / N) and the share of requests refused, for the current `AdaptiveLimit` and, with
`--baseline FILE`, another one (e.g. `git show main:autorubric_cli/judges/policy/adaptive.py >
f.py`).

    python -m bench.adaptive_limit [--calls 1200] [--latency 0.1] [--limit 8] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from pathlib import Path

from bench.rate_limit import load_limit_class


async def one_run(
    limit_class: type, calls: int, latency: float, cap: int, hint: float, seed: int
) -> tuple[float, float]:
    """(wall seconds, share of requests refused) of `calls` calls through one limit."""
    rng = random.Random(seed)
    limit = limit_class(64)
    server = {"in_flight": 0, "refused": 0}
    configured = asyncio.Semaphore(64)

    async def call() -> None:
        async with configured:
            while True:
                epoch = await limit.acquire()
                try:
                    refused = server["in_flight"] >= cap
                    if refused:
                        server["refused"] += 1
                    else:
                        server["in_flight"] += 1
                        await asyncio.sleep(latency * rng.uniform(0.9, 1.1))
                        server["in_flight"] -= 1
                finally:
                    limit.release()
                if not refused:
                    limit.answered()
                    return
                limit.overloaded(epoch)
                await asyncio.sleep(hint)

    started = time.perf_counter()
    await asyncio.gather(*(call() for _ in range(calls)))
    wall = time.perf_counter() - started
    return wall, server["refused"] / (calls + server["refused"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1200)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--limit", type=int, default=8)
    parser.add_argument("--hint", type=float, default=1.0, help="Retry-After of a refusal (s)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", type=Path, default=None)
    args = parser.parse_args()
    variants = {"current": load_limit_class(None)}
    if args.baseline is not None:
        variants = {"baseline": load_limit_class(args.baseline), **variants}
    ideal = args.calls * args.latency / args.limit
    print(
        f"{args.calls} calls of {args.latency * 1000:.0f} ms, refused above {args.limit} in "
        f"flight (retry after {args.hint:g} s), configured for 64; ideal {ideal:.2f} s; "
        f"median of {args.runs} runs"
    )
    for name, limit_class in variants.items():
        runs = [
            asyncio.run(one_run(limit_class, args.calls, args.latency, args.limit, args.hint, i))
            for i in range(args.runs)
        ]
        wall = statistics.median(r[0] for r in runs)
        refused = statistics.median(r[1] for r in runs)
        print(
            f"{name:>8}: {wall / ideal:.2f}x the ideal time (runs: "
            f"{', '.join(f'{r[0] / ideal:.2f}' for r in runs)}); retries {refused:.1%} "
            f"(runs: {', '.join(f'{r[1]:.1%}' for r in runs)})"
        )
    print("targets (docs/design/failures.md): within 1.25x the ideal time, retries <= 10%")


if __name__ == "__main__":
    main()
