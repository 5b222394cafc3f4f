"""Benchmark: a provider that refuses above 8 calls in flight, a run configured for 64.

The loopback server (separate process) answers 429 with `Retry-After: 1` to a request that
arrives while 8 are in flight, as a provider's rate limit does. The run is configured for
`max_concurrency: 64`; adaptive concurrency (judges/policy/adaptive.py) has to find the limit.
Prints, median of --runs: items recorded, the share of requests refused (each refusal is a retry),
and the grading throughput against what 8 in flight allow (items x 3 calls x latency / 8).
Targets (docs/design/failures.md): within 1.25x the ideal time, retries <= 10% of requests.
`--baseline FILE` runs another `AdaptiveLimit`
(e.g. `git show main:autorubric_cli/judges/policy/adaptive.py > f.py`) alternately with the
current one, so both see the same machine load.
litellm is imported before timing, so the figure is the grading, not the start-up.

    python -m bench.rate_limit [--items 400] [--latency 0.1] [--limit 8] [--runs 3] [--baseline F]
        [--transport auto|native|litellm]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.run_throughput import KEY_ENV, write_inputs
from tests.support.judge_server import JudgeServerProcess


def load_limit_class(path: Path | None) -> type:
    """`AdaptiveLimit` from a module file (a baseline, e.g. `git show main:...adaptive.py`),
    or the current one."""
    if path is None:
        from autorubric_cli.judges.policy.adaptive import AdaptiveLimit

        return AdaptiveLimit
    spec = importlib.util.spec_from_file_location("baseline_adaptive", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.AdaptiveLimit  # type: ignore[no-any-return]


def one_run(
    items: int,
    latency: float,
    limit: int,
    directory: Path,
    limit_class: type,
    transport: str = "auto",
) -> tuple[int, int, float]:
    """(items recorded, requests the server received, grading seconds) of one run."""
    import autorubric_cli.judges.judge as judge_module
    from autorubric_cli.experiment.session import RunOptions, start_run

    judge_module.AdaptiveLimit = limit_class  # type: ignore[misc]

    with JudgeServerProcess(latency=latency, concurrency_limit=limit, retry_after=1.0) as server:
        rubric, data = write_inputs(directory, server.api_base, items, 64, transport=transport)
        started = time.perf_counter()
        with contextlib.redirect_stderr(io.StringIO()):
            start_run(rubric, data, RunOptions(out=directory / "exp", cache=False))
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
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="a module file with another AdaptiveLimit, run alternately with the current one",
    )
    parser.add_argument("--transport", default="auto", help="the judge's transport setting")
    args = parser.parse_args()
    os.environ[KEY_ENV] = "bench-key"
    from autorubric_cli.judges.transports.litellm import load_litellm

    load_litellm()
    calls = args.items * 3
    ideal = calls * args.latency / args.limit
    variants = {"current": load_limit_class(None)}
    if args.baseline is not None:
        variants = {"baseline": load_limit_class(args.baseline), **variants}
    results: dict[str, list[tuple[int, int, float]]] = {name: [] for name in variants}
    for _ in range(args.runs):
        for name, limit_class in variants.items():  # alternately: the machine's load hits both
            with tempfile.TemporaryDirectory() as tmp:
                results[name].append(
                    one_run(
                        args.items, args.latency, args.limit, Path(tmp), limit_class, args.transport
                    )
                )
    print(
        f"{args.items} items x 3 calls, latency {args.latency * 1000:.0f} ms, server refuses above "
        f"{args.limit} in flight (429, Retry-After 1 s), run configured for 64; median of "
        f"{args.runs} runs; ideal (what {args.limit} in flight allow) {ideal:.2f} s; "
        f"transport {args.transport}"
    )
    for name, runs in results.items():
        recorded = min(r[0] for r in runs)
        refused = statistics.median((r[1] - calls) / r[1] for r in runs)
        wall = statistics.median(r[2] for r in runs)
        print(
            f"{name:>8}: {wall / ideal:.2f}x the ideal time (runs: "
            f"{', '.join(f'{r[2] / ideal:.2f}' for r in runs)}); retries {refused:.1%} of requests "
            f"(runs: {', '.join(f'{(r[1] - calls) / r[1]:.1%}' for r in runs)}); items recorded "
            f"{recorded} of {args.items}"
        )
    print("targets (docs/design/failures.md): within 1.25x the ideal time, retries <= 10%")


if __name__ == "__main__":
    main()
