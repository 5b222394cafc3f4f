"""Benchmark: a server that queues instead of refusing (one slot, never a 429), as a local
llama.cpp or Ollama server does with its defaults.

The loopback server (separate process) serves one request at a time, `--latency` seconds each,
and queues the rest. Whole `autorubric run`s of `--items` items x `--criteria` criteria (one
judge, `max_concurrency` 16, the default) are timed side by side, alternately, so the machine's
load hits each the same:

- `fixed 2`: `adaptive_concurrency: false`, `max_concurrency: 2` (what a user who knows the
  server would set);
- `adaptive`: adaptive concurrency as it is (judges/policy/adaptive.py with queueing.py);
- `refusals only`: the same limit blind to latency, i.e. the policy before queueing.py, which
  only a 429 could bring down.

Prints, median of --runs: calls per second, the median and 90th percentile call latency at the
server (received to answered, its queue included), the most calls the server held at once, and
the wall time. docs/design/failures.md holds the figures.

    python -m bench.queueing_server [--items 20] [--criteria 4] [--latency 0.2] [--runs 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from autorubric_cli.judges.policy.adaptive import AdaptiveLimit
from bench.run_throughput import KEY_ENV
from tests.support.judge_server import JudgeServerProcess
from tests.support.queueing_sim import RefusalsOnly


@dataclass(frozen=True)
class Variant:
    name: str
    limit_class: type
    max_concurrency: int
    adaptive: bool


VARIANTS = (
    Variant("fixed 2", AdaptiveLimit, 2, False),
    Variant("adaptive", AdaptiveLimit, 16, True),
    Variant("refusals only", RefusalsOnly, 16, True),
)


@dataclass(frozen=True)
class Figures:
    calls_per_s: float
    median_s: float
    p90_s: float
    held: int
    wall_s: float


def write_inputs(
    directory: Path, api_base: str, items: int, criteria: int, variant: Variant
) -> tuple[Path, Path]:
    rubric = directory / "rubric.yaml"
    lines = [f'  - {{name: c{k}, requirement: "Criterion {k} holds"}}' for k in range(criteria)]
    rubric.write_text(
        "criteria:\n"
        + "\n".join(lines)
        + f"""
grader:
  judges:
    - {{model: openai/bench, id: bench, api_base: "{api_base}", api_key_env: {KEY_ENV},
        max_concurrency: {variant.max_concurrency}}}
  adaptive_concurrency: {str(variant.adaptive).lower()}
  workers: 0
  timeout: 600
"""
    )
    data = directory / "data.jsonl"
    with data.open("w") as handle:
        for i in range(items):
            handle.write(json.dumps({"id": f"q{i}", "submission": f"Answer {i}."}) + "\n")
    return rubric, data


def one_run(args: argparse.Namespace, variant: Variant, directory: Path) -> Figures:
    import autorubric_cli.judges.judge as judge_module
    from autorubric_cli.experiment.session import RunOptions, start_run

    judge_module.AdaptiveLimit = variant.limit_class  # type: ignore[misc]
    with JudgeServerProcess(slots=1, latency=args.latency) as server:
        rubric, data = write_inputs(directory, server.api_base, args.items, args.criteria, variant)
        started = time.perf_counter()
        with contextlib.redirect_stderr(io.StringIO()):
            start_run(rubric, data, RunOptions(out=directory / "exp", cache=False))
        wall = time.perf_counter() - started
    latencies = sorted(server.latencies)
    return Figures(
        calls_per_s=len(latencies) / wall,
        median_s=statistics.median(latencies),
        p90_s=latencies[int(0.9 * (len(latencies) - 1))],
        held=server.max_in_flight,
        wall_s=wall,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--criteria", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per request")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ[KEY_ENV] = "bench-key"
    results: dict[str, list[Figures]] = {v.name: [] for v in VARIANTS}
    for _ in range(args.runs):
        for variant in VARIANTS:  # alternately: the machine's load hits each the same
            with tempfile.TemporaryDirectory() as tmp:
                results[variant.name].append(one_run(args, variant, Path(tmp)))
    calls = args.items * args.criteria
    print(
        f"{args.items} items x {args.criteria} criteria = {calls} calls; one-slot server, "
        f"{args.latency * 1000:.0f} ms a request, queues the rest (never 429); "
        f"median of {args.runs} runs"
    )
    for name, runs in results.items():
        med = {f: statistics.median(getattr(r, f) for r in runs) for f in Figures.__annotations__}
        print(
            f"{name:>14}: {med['calls_per_s']:.2f} calls/s, latency median "
            f"{med['median_s']:.2f} s / p90 {med['p90_s']:.2f} s, server held at most "
            f"{med['held']:.0f}, wall {med['wall_s']:.1f} s (runs: "
            f"{', '.join(f'{r.wall_s:.1f}' for r in runs)})"
        )


if __name__ == "__main__":
    main()
