"""Judge-call throughput: our grader path over each transport vs raw clients, same server, load.

The loopback server runs in a separate process with a fixed latency, so `time.process_time()`
in this process measures client CPU only. Each mode makes N calls at a fixed concurrency;
the figures are medians over runs, raw and ours interleaved. "ours" grades N one-criterion
items through `CriterionGrader` (prompt, call, parse, aggregate, record); "raw" sends the same
messages with bare `litellm.acompletion` behind a semaphore.

litellm's own CPU cost (several ms per call, with background logging threads) varies a lot
from run to run, more than our overhead. So a second pass replaces `litellm.acompletion` by a
stub that returns a canned response: there "raw" costs nothing and "ours" is our overhead
alone, measured without the network's and litellm's noise.

A third pass measures the ceiling: a server with 0 ms latency, concurrency 64 (`--ceiling-*`),
calls/s and CPU/call, interleaved run by run, for: a bare aiohttp + orjson loop (one session,
the floor of any Python client), bare `litellm.acompletion`, ours over the native transport
(target <= 1.2 ms CPU/call, docs/guides/transports.md) and ours over litellm.
A fourth measures the same ceiling with the litellm calls in `--workers` judge worker
processes (judges/transports/workers.py; default: one per core), CPU of this process and the
workers.

    /work/venv/bin/python -m bench.judge_throughput [--calls 600] [--latency 0.05]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from autorubric_cli.core.items import Item
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges.policy.retry import RetryPolicy
from autorubric_cli.judges.replies import response_format
from autorubric_cli.judges.transports.direct import close_clients
from autorubric_cli.judges.transports.litellm import load_litellm
from tests.support import TEST_KEY_ENV, http_judge, make_item, make_rubric
from tests.support.judge_server import JudgeServerProcess, completion_body

KEY = "bench-key-not-secret"


@dataclass(frozen=True)
class Measure:
    calls: int
    wall_s: float
    cpu_s: float

    @property
    def calls_per_s(self) -> float:
        return self.calls / self.wall_s

    @property
    def cpu_ms_per_call(self) -> float:
        return 1000 * self.cpu_s / self.calls


async def timed(calls: int, run: Callable[[], Awaitable[None]]) -> Measure:
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    await run()
    return Measure(calls, time.perf_counter() - wall, time.process_time() - cpu)


def items(n: int, prefix: str) -> list[Item]:
    return [
        make_item(f"{prefix}-{i}", f"The NMC cell stores {200 + i} Wh/kg.", i) for i in range(n)
    ]


async def measure_ours(
    api_base: str, calls: int, concurrency: int, warmup: int, transport: str = "litellm"
) -> Measure:
    judge = http_judge(api_base, "bench", max_concurrency=concurrency, transport=transport)
    rubric = make_rubric([judge], concurrency=concurrency, max_attempts=1)
    grader = CriterionGrader(rubric, seed=1, retry=RetryPolicy())
    await asyncio.gather(*(grader.grade(item) for item in items(warmup, "warm")))
    batch = items(calls, "run")
    measure = await timed(calls, lambda: gather(grader.grade(item) for item in batch))
    await grader.aclose()
    assert grader.stats.error_votes == 0, "a benchmark call failed"
    return measure


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of another process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure_workers(api_base: str, calls: int, concurrency: int, workers: int) -> Measure:
    """Ours with every litellm call in `workers` worker processes, started and warmed first."""
    from autorubric_cli.judges.transports.workers import WorkerPool

    judge = http_judge(api_base, "bench", max_concurrency=concurrency, transport="litellm")
    rubric = make_rubric([judge], concurrency=concurrency, max_attempts=1)
    pool = WorkerPool(rubric.grader.judges, rubric.grader.timeout, workers)
    pool.start()
    grader = CriterionGrader(rubric, seed=1, retry=RetryPolicy(), workers=pool)
    await asyncio.gather(*(grader.grade(item) for item in items(4 * concurrency, "warm")))
    pids = [w.process.pid for w in pool.workers]
    before = sum(map(process_cpu_s, pids))
    batch = items(calls, "run")
    measure = await timed(calls, lambda: gather(grader.grade(item) for item in batch))
    worker_cpu = sum(map(process_cpu_s, pids)) - before
    await grader.aclose()
    assert grader.stats.error_votes == 0, "a benchmark call failed"
    return Measure(calls, measure.wall_s, measure.cpu_s + worker_cpu)


async def measure_raw(api_base: str, calls: int, concurrency: int, warmup: int) -> Measure:
    litellm = load_litellm()
    rubric = make_rubric([http_judge(api_base, "bench")])
    builder = CriterionGrader(rubric, seed=1).requests
    fmt = response_format(None)
    slots = asyncio.Semaphore(concurrency)

    async def call(item: Item) -> None:
        messages = builder.request(item, rubric.criteria[0], "openai/bench", 0).messages
        async with slots:
            await litellm.acompletion(
                model="openai/bench",
                messages=messages,
                api_base=api_base,
                api_key=KEY,
                response_format=fmt,
                temperature=0.0,
                timeout=60,
                max_retries=0,
                num_retries=0,
            )

    await asyncio.gather(*(call(item) for item in items(warmup, "warm")))
    batch = items(calls, "run")
    measure = await timed(calls, lambda: gather(call(item) for item in batch))
    await close_clients()
    return measure


async def measure_bare(api_base: str, calls: int, concurrency: int, warmup: int) -> Measure:
    """The same requests from a bare aiohttp + orjson loop: one session, no judge layer."""
    import aiohttp
    import orjson

    rubric = make_rubric([http_judge(api_base, "bench")])
    builder = CriterionGrader(rubric, seed=1).requests
    fmt = response_format(None)
    slots = asyncio.Semaphore(concurrency)
    url = api_base + "/chat/completions"
    headers = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency))

    async def call(item: Item) -> None:
        messages = builder.request(item, rubric.criteria[0], "openai/bench", 0).messages
        body = {"model": "bench", "messages": messages, "temperature": 0.0, "response_format": fmt}
        async with slots, session.post(url, data=orjson.dumps(body), headers=headers) as reply:
            orjson.loads(await reply.read())["choices"][0]["message"]["content"]

    await asyncio.gather(*(call(item) for item in items(warmup, "warm")))
    batch = items(calls, "run")
    measure = await timed(calls, lambda: gather(call(item) for item in batch))
    await session.close()
    return measure


async def gather(awaitables: object) -> None:
    await asyncio.gather(*awaitables)  # type: ignore[misc]


def median_measure(runs: list[Measure]) -> Measure:
    return Measure(
        runs[0].calls,
        statistics.median(m.wall_s for m in runs),
        statistics.median(m.cpu_s for m in runs),
    )


def report(name: str, m: Measure, ideal: float) -> None:
    print(
        f"{name:>14}: {m.calls_per_s:7.1f} calls/s  {m.cpu_ms_per_call:6.2f} ms CPU/call  "
        f"{m.calls_per_s / ideal:5.2f} of ideal"
    )


def native(api_base: str, calls: int, concurrency: int, warmup: int) -> Awaitable[Measure]:
    return measure_ours(api_base, calls, concurrency, warmup, transport="native")


MODES: dict[str, Callable[[str, int, int, int], Awaitable[Measure]]] = {
    "bare aiohttp": measure_bare,
    "raw litellm": measure_raw,
    "ours native": native,
    "ours litellm": measure_ours,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=600)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ceiling-concurrency", type=int, default=64)
    parser.add_argument("--ceiling-calls", type=int, default=600)
    parser.add_argument("--workers", type=int, default=0, help="worker processes (0: cores)")
    args = parser.parse_args()
    os.environ[TEST_KEY_ENV] = KEY
    ideal = args.concurrency / args.latency
    litellm = load_litellm()
    with JudgeServerProcess(latency=args.latency) as server:
        at_latency = compare(server.api_base, args, MODES)
    print(
        f"{args.calls} calls, latency {args.latency * 1000:.0f} ms, concurrency "
        f"{args.concurrency}, ideal {ideal:.0f} calls/s, median of {args.runs} runs; "
        f"server: separate process ({server.request_count} requests, "
        f"max in flight {server.max_in_flight}, server CPU not counted)"
    )
    for name, measure in at_latency.items():
        report(name, measure, ideal)
    ceiling_args = argparse.Namespace(
        calls=args.ceiling_calls, concurrency=args.ceiling_concurrency, runs=args.runs
    )
    with JudgeServerProcess(latency=0.0) as server:
        ceiling = compare(server.api_base, ceiling_args, MODES)
    print(
        f"ceiling (0 ms latency, concurrency {args.ceiling_concurrency}, "
        f"{args.ceiling_calls} calls, one process, median of {args.runs} runs):"
    )
    for name, m in ceiling.items():
        print(f"{name:>14}: {m.calls_per_s:6.0f} calls/s  {m.cpu_ms_per_call:5.2f} ms CPU/call")
    bare, ours_native = ceiling["bare aiohttp"], ceiling["ours native"]
    print(
        f"ours native: {ours_native.cpu_ms_per_call:.2f} ms CPU/call (target <= 1.2), "
        f"{ours_native.cpu_ms_per_call - bare.cpu_ms_per_call:+.2f} ms over the bare loop, "
        f"{ceiling['ours litellm'].cpu_ms_per_call / ours_native.cpu_ms_per_call:.1f}x less "
        "than ours over litellm"
    )
    from autorubric_cli.judges.transports.workers import cores

    workers = args.workers or cores()
    with JudgeServerProcess(latency=0.0) as server:
        pooled = median_measure(
            [
                asyncio.run(
                    measure_workers(
                        server.api_base, 3 * args.ceiling_calls, args.ceiling_concurrency, workers
                    )
                )
                for _ in range(args.runs)
            ]
        )
    print(
        f"ceiling with {workers} litellm worker processes: ours {pooled.calls_per_s:.0f} calls/s "
        f"({pooled.cpu_ms_per_call:.2f} ms CPU/call over all processes), "
        f"{pooled.calls_per_s / ceiling['ours litellm'].calls_per_s:.2f}x one process over litellm"
    )
    real = litellm.acompletion
    litellm.acompletion = canned_completion(litellm)
    stubbed = {"raw litellm": measure_raw, "ours litellm": measure_ours}
    try:
        stub = compare("http://127.0.0.1:9/v1", args, stubbed)
    finally:
        litellm.acompletion = real
    stub_raw, stub_ours = stub["raw litellm"], stub["ours litellm"]
    stub_overhead = stub_ours.cpu_ms_per_call - stub_raw.cpu_ms_per_call
    print(
        f"stubbed litellm.acompletion: raw {stub_raw.cpu_ms_per_call:.3f}, ours "
        f"{stub_ours.cpu_ms_per_call:.3f} ms CPU/call -> our overhead {stub_overhead:.3f} ms/call"
    )


def compare(
    api_base: str,
    args: argparse.Namespace,
    modes: dict[str, Callable[[str, int, int, int], Awaitable[Measure]]],
) -> dict[str, Measure]:
    """The median measure of every mode, the modes interleaved run by run."""
    results: dict[str, list[Measure]] = {name: [] for name in modes}
    for _ in range(args.runs):
        for name, measure in modes.items():
            run = measure(api_base, args.calls, args.concurrency, args.concurrency)
            results[name].append(asyncio.run(run))  # type: ignore[arg-type]
    return {name: median_measure(runs) for name, runs in results.items()}


def canned_completion(litellm: ModuleType) -> Callable[..., Awaitable[object]]:
    """A stand-in for `acompletion` that returns one prebuilt response (priced: unknown)."""
    content = '{"explanation": "canned", "criterion_status": "MET"}'
    response = litellm.ModelResponse(**completion_body("bench", [content], 100, None))
    response._hidden_params = {"response_cost": None}

    async def acompletion(**_: object) -> object:
        await asyncio.sleep(0)
        return response

    return acompletion


if __name__ == "__main__":
    main()
