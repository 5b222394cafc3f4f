"""Benchmark: how long `run` takes to exit after Ctrl-C, against the report it no longer writes.

A CLI run grades ITEMS items against the loopback judge (separate process, LATENCY s a call);
once RECORDED items are on disk it gets SIGINT. Printed, median of --runs: seconds from the
signal to the exit (the in-flight calls finish first: at most LATENCY with calls in flight),
and seconds `autorubric report DIR --format json` then takes (what an interrupted run used to
spend before exiting, plus report.html). Target (docs/reference/cli-behaviour.md): exit within 1 s.

    python bench/interrupt_latency.py [--items 3000] [--recorded 1500] [--latency 0.05] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.run_throughput import KEY_ENV, write_inputs
from tests.support.judge_server import JudgeServerProcess

ROOT = Path(__file__).resolve().parents[1]


def lines(path: Path) -> int:
    if not path.exists():
        return 0
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


def cli(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "autorubric_cli", *map(str, args)]


def one_run(items: int, recorded: int, latency: float, directory: Path) -> tuple[float, float]:
    """(seconds from SIGINT to exit, seconds of the report the run did not write)."""
    env = {**os.environ, KEY_ENV: "sk-bench", "PYTHONPATH": str(ROOT)}
    with JudgeServerProcess(latency=latency) as server:
        rubric, data = write_inputs(directory, server.api_base, items, 16, workers="0")
        out = directory / "exp"
        proc = subprocess.Popen(
            cli("run", rubric, data, "--out", out, "--no-cache"),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while lines(out / "items.jsonl") < recorded:
            if proc.poll() is not None:
                raise SystemExit(f"the run ended before {recorded} items were recorded")
            time.sleep(0.01)
        signalled = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        proc.wait()
        stopped = time.perf_counter() - signalled
    started = time.perf_counter()
    subprocess.run(cli("report", out, "--format", "json"), env=env, capture_output=True, check=True)
    return stopped, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--recorded", type=int, default=1500)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    stops, reports = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            stop, report = one_run(args.items, args.recorded, args.latency, Path(tmp))
        stops.append(stop)
        reports.append(report)
    print(f"items {args.items}, SIGINT after {args.recorded} recorded, latency {args.latency} s")
    print(f"exit after SIGINT: median {statistics.median(stops):.2f} s  (runs: "
          + ", ".join(f"{s:.2f}" for s in stops) + ")")  # fmt: skip
    print(f"report it skipped: median {statistics.median(reports):.2f} s  (runs: "
          + ", ".join(f"{s:.2f}" for s in reports) + ")")  # fmt: skip


if __name__ == "__main__":
    main()
