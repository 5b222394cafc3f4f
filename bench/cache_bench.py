"""Call cache speed (docs/guides/cache-and-cost.md): CPU per hit, lookups in a big cache, bytes per
entry, cached rerun.

1. A cache file with `--entries` entries (realistic answers, keys from `request_key`); CPU per
   hit of the store alone (`CallCache.get`) and of the whole hit path the Judge takes
   (`CachedTransport.lookup`: request key + get + Completion), medians over `--repeats` rounds
   of `--lookups` random hits. Target: < 0.3 ms. The file's size per entry is printed.
2. A fully cached rerun: `autorubric run` of `--items` items x 3 criteria x 1 judge against a
   loopback server with 0 ms latency (in its own process), first cold (fills the cache), then
   again into a new directory: wall time of the warm run, and the requests the server received
   during it (must be 0). Target: < 15 s for 10,000 items.

Quick check (defaults):  /work/venv/bin/python -m bench.cache_bench
Issue's sizes:           /work/venv/bin/python -m bench.cache_bench --entries 1000000 --items 10000
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson
import yaml

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.judges.cache import CallCache, entry_digest
from autorubric_cli.judges.replies import response_format
from autorubric_cli.judges.request import Call, Completion, VoteRequest
from autorubric_cli.judges.request_key import request_key
from autorubric_cli.judges.transports.cached import CachedTransport, SingleFlight
from tests.support import TEST_KEY_ENV, make_rubric
from tests.support.judge_server import JudgeServerProcess

SPEC = JudgeSpec(model="openai/gpt-4.1-mini", api_base="http://127.0.0.1:1/v1")
SUBMISSION = "The NMC cell reaches 270 Wh/kg while LFP stays near 160 Wh/kg. " * 20


def messages(i: int) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "You are an expert grader. " * 30},
        {"role": "user", "content": f"<submission>{SUBMISSION} item {i}</submission>"},
    ]


def call_of(i: int, fmt: dict[str, Any]) -> Call:
    """Item i's call on criterion c1, sample 0."""
    criterion = Criterion(name="c1", requirement="r")
    return Call(messages(i), fmt, VoteRequest(f"it{i}", criterion, 0, messages(i)))


def fill(path: Path, entries: int) -> None:
    """Insert entries in one transaction (fast), exactly as `CallCache.put` would store them."""
    fmt = response_format(None)
    answer = {
        "content": '{"explanation": "The submission states 270 Wh/kg, within the range.", '
        '"criterion_status": "MET"}',
        "reasoning": None,
        "usage": {"prompt_tokens": 412, "completion_tokens": 31},
        "cost": 0.0002144,
    }
    schema = CallCache(path)
    schema.get("")  # connects: creates the file and its schema
    schema.close()
    import sqlite3

    db = sqlite3.connect(path)
    now = time.time()
    rows = []
    for i in range(entries):
        key = request_key(SPEC, call_of(i, fmt))
        value = orjson.dumps(answer)
        rows.append((key, SPEC.model, value, entry_digest(key, value), now, now))
        if len(rows) == 50_000 or i == entries - 1:
            db.executemany("INSERT OR IGNORE INTO calls VALUES (?, ?, ?, ?, ?, 0, ?)", rows)
            db.commit()
            rows = []
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def per_call_us(fn: Callable[[Any], object], args: Sequence[object], repeats: int) -> float:
    rounds = []
    for _ in range(repeats):
        start = time.process_time()
        for a in args:
            fn(a)
        rounds.append((time.process_time() - start) / len(args) * 1e6)
    return statistics.median(rounds)


def bench_lookups(entries: int, lookups: int, repeats: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "calls.sqlite3"
        started = time.perf_counter()
        fill(path, entries)
        print(f"filled {entries:,} entries in {time.perf_counter() - started:.1f}s")
        size = path.stat().st_size
        print(f"file: {size:,} B, {size / entries:.0f} B per entry")
        cache = CallCache(path)
        rng = random.Random(0)
        picks = [rng.randrange(entries) for _ in range(lookups)]
        fmt = response_format(None)
        keys = [request_key(SPEC, call_of(i, fmt)) for i in picks]
        store_us = per_call_us(cache.get, list(keys), repeats)
        print(f"store hit (CallCache.get): {store_us:.1f} us CPU (median of {repeats})")
        transport = CachedTransport(_NoCalls(), SPEC, cache, SingleFlight())
        calls = [call_of(i, fmt) for i in picks]
        assert all(transport.lookup(call) is not None for call in calls[:10])
        path_us = per_call_us(transport.lookup, calls, repeats)
        verdict = "OK" if path_us < 300 else "OVER TARGET"
        print(
            f"hit path (key + get + Completion): {path_us:.1f} us CPU; target < 300 us: {verdict}"
        )
        cache.close()


class _NoCalls:
    async def complete(self, call: Call) -> Completion:
        raise AssertionError("a cache hit must not call the transport")

    async def aclose(self) -> None:
        return None


def bench_rerun(items: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, JudgeServerProcess(latency=0.0) as server:
        root = Path(tmp)
        rubric = make_rubric(
            [
                {
                    "model": "openai/gpt-4.1-mini",
                    "api_base": server.api_base,
                    "api_key_env": TEST_KEY_ENV,
                }
            ],
            [{"name": f"c{i}", "requirement": f"Requirement {i} holds"} for i in range(3)],
            concurrency=64,
        )
        rubric_path = root / "rubric.yaml"
        grader = rubric.grader.model_dump(mode="json", exclude_none=True)
        criteria = [{"name": c.name, "requirement": c.requirement} for c in rubric.criteria]
        rubric_path.write_text(yaml.safe_dump({"criteria": criteria, "grader": grader}))
        data = root / "data.jsonl"
        with data.open("w") as handle:
            for i in range(items):
                handle.write(
                    orjson.dumps({"id": f"i{i}", "submission": f"{SUBMISSION} {i}"}).decode() + "\n"
                )
        env = {**os.environ, TEST_KEY_ENV: "bench", "AUTORUBRIC_CACHE_DIR": str(root / "cache")}

        def run(out: str, *extra: str) -> tuple[float, float]:
            """Wall seconds and the child's CPU seconds (less noisy on a loaded machine)."""
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "autorubric_cli",
                    "run",
                    str(rubric_path),
                    str(data),
                    "--out",
                    str(root / out),
                    "--format",
                    "json",
                    *extra,
                ],
                env=env,
                check=True,
                capture_output=True,
            )
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            return wall, cpu

        cold, _ = run("cold")
        halves = [run(f"half{k}", "--limit", str(items // 2)) for k in range(3)]
        warms = [run(f"warm{k}") for k in range(3)]
        recorded = (root / "warm0" / "items.jsonl").read_bytes().count(b"\n")
        assert recorded == items, f"warm run recorded {recorded} of {items} items"
        print(f"runs (wall s, CPU s): {items // 2} items {halves}; {items} items {warms}")
    sent = server.request_count
    half = statistics.median(w for w, _ in halves)
    warm = statistics.median(w for w, _ in warms)
    half_cpu = statistics.median(c for _, c in halves)
    warm_cpu = statistics.median(c for _, c in warms)
    per_item = (warm_cpu - half_cpu) / (items - items // 2)
    projected = warm + per_item * (10_000 - items)
    verdict = "OK" if projected < 15 else "OVER TARGET"
    print(
        f"rerun {items:,} items x 3 criteria x 1 judge: cold {cold:.1f}s, "
        f"fully cached {warm:.2f}s (median of 3; {items // 2:,} items: {half:.2f}s)"
    )
    print(
        f"fully cached CPU: {half_cpu:.2f}s / {warm_cpu:.2f}s; {per_item * 1e3:.2f} ms per item; "
        f"10,000 items: "
        f"{'measured' if items >= 10_000 else 'projected'} {projected:.1f}s; target < 15 s: "
        f"{verdict}"
    )
    print(f"requests received in total: {sent:,} (cold run alone: {items * 3:,})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--lookups", type=int, default=5_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--items", type=int, default=500)
    args = parser.parse_args()
    bench_lookups(args.entries, args.lookups, args.repeats)
    bench_rerun(args.items)


if __name__ == "__main__":
    main()
