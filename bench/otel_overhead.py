"""Benchmark: what `--otel` costs a run (docs/guides/tracing.md).

The same `autorubric run` command (a process of its own, against the loopback judge server in a
child process) three ways: without `--otel`, with `--otel` to a live OTLP/HTTP receiver on
127.0.0.1 (which decodes every request), and with `--otel` to a dead port (nothing listens).
Prints the median wall time of --runs runs of each, side by side, the difference from the run
without traces, the spans the live receiver got and the warning lines of the dead run.
Targets: <= 3% with a live receiver; one warning line and <= 1 s extra with a dead one.

    python -m bench.otel_overhead [--items 300] [--latency 0.05] [--concurrency 16] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.run_throughput import KEY_ENV, write_inputs
from tests.support.judge_server import JudgeServerProcess
from tests.support.otlp_receiver import OtlpReceiver

MODES = ("without", "live receiver", "dead port")


def dead_endpoint() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def run_once(rubric: Path, data: Path, out: Path, endpoint: str | None) -> tuple[float, str]:
    """(wall seconds, stderr) of one whole command; `endpoint` None: without --otel."""
    env = {**os.environ, KEY_ENV: "bench-key"}
    command = [sys.executable, "-m", "autorubric_cli", "run", str(rubric), str(data)]
    command += ["--out", str(out), "--no-cache", "--format", "json"]
    if endpoint is not None:
        command.append("--otel")
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"run failed ({done.returncode}): {done.stderr[-500:]}")
    return elapsed, done.stderr


def import_s(runs: int) -> float:
    """Median seconds to import the SDK and the exporter in a fresh interpreter: a fixed cost of
    `--otel` that a longer run spreads thinner."""
    code = (
        "import time; t = time.perf_counter()\n"
        "import autorubric_cli.export.otel\n"
        "print(time.perf_counter() - t)"
    )
    found = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout)
        for _ in range(runs)
    ]
    return statistics.median(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=300)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    times: dict[str, list[float]] = {mode: [] for mode in MODES}
    warnings: list[int] = []
    spans: list[int] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        JudgeServerProcess(latency=args.latency) as server,
        OtlpReceiver() as receiver,
    ):
        directory = Path(tmp)
        rubric, data = write_inputs(directory, server.api_base, args.items, args.concurrency)
        endpoints = {"without": None, "live receiver": receiver.endpoint}
        for run in range(args.runs):
            endpoints["dead port"] = dead_endpoint()
            for mode in MODES if run % 2 == 0 else reversed(MODES):  # alternate the order
                before = len(receiver.spans)
                out = directory / f"{mode.replace(' ', '-')}-{run}"
                elapsed, stderr = run_once(rubric, data, out, endpoints[mode])
                times[mode].append(elapsed)
                if mode == "live receiver":
                    spans.append(len(receiver.spans) - before)
                if mode == "dead port":
                    warnings.append(sum("traces:" in line for line in stderr.splitlines()))
    base = statistics.median(times["without"])
    print(
        f"{args.items} items x 3 criteria, judge latency {args.latency * 1000:.0f} ms, "
        f"concurrency {args.concurrency}; median of {args.runs} runs of the whole command"
    )
    print(f"{'mode':<16}{'median s':>10}{'extra s':>10}{'extra %':>10}")
    for mode in MODES:
        median = statistics.median(times[mode])
        extra = median - base
        print(f"{mode:<16}{median:>10.3f}{extra:>10.3f}{100 * extra / base:>9.1f}%")
    print(f"of which importing the SDK and exporter: {import_s(args.runs):.3f} s")
    print(f"spans per live run: {sorted(set(spans))} (expected {args.items * 4 + 1})")
    print(f"warning lines per dead run: {sorted(set(warnings))} (target [1])")


if __name__ == "__main__":
    main()
