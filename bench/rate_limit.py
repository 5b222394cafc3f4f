"""Benchmark: a provider that refuses above 8 calls in flight, a run configured for 64.

The loopback server (separate process) answers 429 with `Retry-After: 1` to a request that
arrives while 8 are in flight, as a provider's rate limit does. The run is configured for
`max_concurrency: 64`; adaptive concurrency (judges/adaptive.py) has to find the limit. Prints,
median of --runs: items recorded, the share of requests refused (each refusal is a retry),
and the grading throughput against what 8 in flight allow (items x 3 calls x latency / 8).
Targets (issue 9): every item recorded, retries <= 15% of calls, throughput >= 0.80.
litellm is imported before timing, so the figure is the grading, not the start-up.

    python bench/rate_limit.py [--items 400] [--latency 0.1] [--limit 8] [--runs 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run_throughput import KEY_ENV, write_inputs  # noqa: E402
from tests.support.judge_server import JudgeServerProcess  # noqa: E402


def one_run(items: int, latency: float, limit: int, directory: Path) -> tuple[int, int, float]:
    """(items recorded, requests the server received, grading seconds) of one run."""
    from autorubric_cli.experiment.session import RunOptions, start_run

    with JudgeServerProcess(latency=latency, concurrency_limit=limit, retry_after=1.0) as server:
        rubric, data = write_inputs(directory, server.api_base, items, 64)
        started = time.perf_counter()
        with contextlib.redirect_stderr(io.StringIO()):
            start_run(rubric, data, RunOptions(out=directory / "exp", no_cache=True))
        wall = time.perf_counter() - started
    lines = (directory / "exp" / "items.jsonl").read_text().splitlines()
    recorded = {json.loads(line)["id"] for line in lines}
    return len(recorded), server.request_count, wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--limit", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ[KEY_ENV] = "bench-key"
    from autorubric_cli.judges.litellm_transport import load_litellm

    load_litellm()
    calls = args.items * 3
    ideal = calls * args.latency / args.limit
    results = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            results.append(one_run(args.items, args.latency, args.limit, Path(tmp)))
    recorded = min(r[0] for r in results)
    refused = statistics.median((r[1] - calls) / r[1] for r in results)
    wall = statistics.median(r[2] for r in results)
    print(
        f"{args.items} items x 3 calls, latency {args.latency * 1000:.0f} ms, server refuses above "
        f"{args.limit} in flight (429, Retry-After 1 s), run configured for 64; median of "
        f"{args.runs} runs"
    )
    print(f"items recorded: {recorded} of {args.items} (every run)")
    print(
        f"requests refused (retries): {refused:.1%} of requests "
        f"(runs: {', '.join(f'{(r[1] - calls) / r[1]:.1%}' for r in results)}); target <= 15%"
    )
    print(
        f"grading {wall:.2f} s; {args.limit} in flight allow {ideal:.2f} s: throughput "
        f"{ideal / wall:.2f} of that (runs: {', '.join(f'{ideal / r[2]:.2f}' for r in results)}); "
        "target >= 0.80"
    )


if __name__ == "__main__":
    main()
