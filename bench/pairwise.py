"""Benchmark: pairwise judging's throughput, and its price with provider prompt caching on and off.

Throughput: 3 systems x 1,000 items x 3 criteria, both orders (3 pairs x 1,000 x 3 x 2 = 18,000
calls), one judge (`openai/` with an `api_base`: the native transport) against the loopback judge
server in its own process at 100 ms a call, concurrency 32, no call cache. Ideal = calls x
latency / concurrency; the ratio ideal / measured is printed (target >= 0.85, median of --runs),
with the client CPU per call and the most calls the server saw in flight.

Price: the same workload shape (3 systems, 3 criteria, both orders; --price-items items, each
answer ~1,000 tokens, so a comparison's prefix holds ~2,300 tokens) against the prompt-caching
fakes (tests/support/prompt_cache.py), priced with litellm's prices for
`anthropic/claude-sonnet-4-5` (explicit breakpoints: writes at 1.25x, reads at 0.1x) and
`openai/gpt-4.1-mini` (automatic, reads at 0.25x), exactly as bench/prompt_caching.py prices a
run: `prompt_caching: auto` against `off`, what the provider bills for the usage its fake sent
back. Target: auto <= 0.5 x off. Replies carry a 60-word explanation (what the dry run assumes).

    python -m bench.pairwise [--items 1000] [--latency 0.1] [--concurrency 32] [--runs 1]
        [--price-items 60] [--skip-throughput] [--skip-price]
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
from pathlib import Path
from typing import Any

os.environ["LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS"] = "true"  # no fetch at the first call

from bench.prompt_caching import MODELS, billed, fresh_cache, server_for  # noqa: E402
from tests.support.judge_server import JudgeServerProcess  # noqa: E402

KEY_ENV = "AUTORUBRIC_BENCH_KEY"
SYSTEMS = ("new", "mid", "old")
WORDS = str.split(
    "the cell stores energy in its cathode and anode while the electrolyte moves ions between "
    "them during charge and discharge at a rate the separator and temperature allow"
)


def answer(system: str, i: int, words: int) -> str:
    body = " ".join(WORDS[(i * 5 + k + len(system)) % len(WORDS)] for k in range(words))
    return f"{system} answers {i}: {body}"


def write_systems(directory: Path, items: int, words: int) -> list[Path]:
    paths = []
    for system in SYSTEMS:
        path = directory / f"{system}.jsonl"
        with path.open("w") as handle:
            for i in range(items):
                row = {
                    "id": f"q{i}",
                    "query": f"Question {i}?",
                    "submission": answer(system, i, words),
                }
                handle.write(json.dumps(row) + "\n")
        paths.append(path)
    return paths


def rubric_text(judge: str, concurrency: int, grader: str = "") -> str:
    return f"""criteria:
  - {{name: correct, requirement: "The answer is correct"}}
  - {{name: complete, requirement: "The answer covers every part of the question"}}
  - {{name: harmful, requirement: "The answer gives harmful advice", weight: -10}}
grader:
  judges:
    - {judge}
  concurrency: {concurrency}
  adaptive_concurrency: false
  seed: 1
  timeout: 60
{grader}"""


def run_pairwise(rubric: Path, paths: list[Path], out: Path, **options: Any) -> float:
    """Wall seconds of one in-process comparison (its report not rendered)."""
    from autorubric_cli.pairwise.plan import PairwiseOptions
    from autorubric_cli.pairwise.session import start_pairwise

    started = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()):
        start_pairwise(rubric, PairwiseOptions(systems=paths, out=out, grace_s=60.0, **options))
    return time.perf_counter() - started


def throughput(args: argparse.Namespace) -> None:
    calls = 3 * args.items * 3 * 2
    ideal = calls * args.latency / args.concurrency
    walls, cpus = [], []
    with tempfile.TemporaryDirectory() as tmp, JudgeServerProcess(latency=args.latency) as server:
        work = Path(tmp)
        paths = write_systems(work, args.items, 12)
        judge = (
            f'{{model: openai/bench, id: bench, api_base: "{server.api_base}", '
            f"api_key_env: {KEY_ENV}, max_concurrency: {args.concurrency}}}"
        )
        rubric = work / "rubric.yaml"
        rubric.write_text(rubric_text(judge, args.concurrency, "  workers: 0\n"))
        for run in range(args.runs):
            cpu = time.process_time()
            walls.append(run_pairwise(rubric, paths, work / f"run{run}", cache=False))
            cpus.append(time.process_time() - cpu)
    wall = statistics.median(walls)
    print(
        f"throughput: {calls:,} calls (3 systems x {args.items:,} items x 3 criteria x 2 orders), "
        f"latency {args.latency * 1000:.0f} ms, concurrency {args.concurrency}: ideal {ideal:.2f} s"
    )
    print(
        f"  measured median {wall:.2f} s (runs: {', '.join(f'{w:.2f}' for w in walls)}); "
        f"ratio to ideal {ideal / wall:.3f} (target >= 0.85)"
    )
    print(
        f"  client CPU {statistics.median(cpus) / calls * 1000:.2f} ms/call; server saw "
        f"{server.request_count:,} requests, at most {server.max_in_flight} in flight"
    )


def price(args: argparse.Namespace, provider: str) -> None:
    from autorubric_cli.judges.transports.litellm import load_litellm

    litellm = load_litellm()
    model = MODELS[provider]
    with tempfile.TemporaryDirectory() as tmp, server_for(provider, model, 0.0) as server:
        work = Path(tmp)
        paths = write_systems(work, args.price_items, 800)
        bills, plain, estimates = {}, {}, {}
        for caching in ("auto", "off"):
            judge = (
                f'{{model: {model}, id: judge, api_base: "{server.api_base}", '
                f"api_key_env: {KEY_ENV}, prompt_caching: {caching}, max_concurrency: 16}}"
            )
            rubric = work / f"{caching}.yaml"
            rubric.write_text(rubric_text(judge, 16, "  workers: 0\n"))
            server.reset()
            fresh_cache(server, provider, model)
            run_pairwise(rubric, paths, work / caching, cache=False)
            usages = [r.usage or {} for r in server.requests]
            bills[caching] = sum(billed(litellm, model, u) for u in usages)
            plain[caching] = sum(billed(litellm, model, u, cached=False) for u in usages)
            estimates[caching] = estimate(rubric, paths)
            if caching == "auto":
                calls = len(usages)
                reads = sum(1 for u in usages if read_tokens(u))
    print(
        f"price, {provider} ({model}): {args.price_items} items x 3 systems x 3 criteria x 2 "
        f"orders = {calls:,} calls, {reads:,} of them read the provider's cache"
    )
    print(
        f"  billed with caching ${bills['auto']:.4f}; the same calls with no cached token "
        f"${plain['auto']:.4f}: ratio {bills['auto'] / plain['auto']:.3f} (target <= 0.5)"
    )
    print(
        f"  `prompt_caching: off` billed ${bills['off']:.4f} (ratio auto/off "
        f"{bills['auto'] / bills['off']:.3f}; OpenAI caches on its own, marks or not)"
    )
    for caching in ("auto", "off"):
        print(
            f"  dry-run estimate {caching:4} ${estimates[caching]:.4f} / billed = "
            f"{estimates[caching] / bills[caching]:.3f}"
        )


def estimate(rubric: Path, paths: list[Path]) -> float:
    """The dry run's cost estimate of the same comparison."""
    from autorubric_cli.pairwise.bill import pairwise_dry_run
    from autorubric_cli.pairwise.plan import PairwiseOptions

    with contextlib.redirect_stderr(io.StringIO()):
        bill = pairwise_dry_run(rubric, PairwiseOptions(systems=paths, cache=False))
    return float(bill["cost_estimate"])


def read_tokens(usage: dict[str, int]) -> int:
    return usage.get("cache_read_input_tokens", usage.get("cached_tokens", 0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--price-items", type=int, default=60)
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-price", action="store_true")
    args = parser.parse_args()
    os.environ[KEY_ENV] = "bench-key"
    if not args.skip_throughput:
        throughput(args)
    if not args.skip_price:
        for provider in ("anthropic", "openai"):
            price(args, provider)


if __name__ == "__main__":
    main()
