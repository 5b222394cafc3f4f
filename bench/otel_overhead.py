"""Benchmark: what `--otel` costs a run (docs/guides/tracing.md).

The same `autorubric run` command (a process of its own, against the loopback judge server in a
child process) three ways: without `--otel`, with `--otel` to a live OTLP/HTTP receiver on
127.0.0.1 (which decodes every request), and with `--otel` to a dead port (nothing listens).
Prints, for --runs runs of each, side by side: the median and the fastest wall time, and the
median CPU time of the command's processes (user + system: what the tracing itself costs, and
the figure a loaded machine disturbs least), each with its difference from the run without
traces; then the spans the live receiver got and the warning lines of the dead run.
Targets: <= 3% with a live receiver; one warning line and <= 1 s extra with a dead one.

    python -m bench.otel_overhead [--items 300] [--latency 0.05] [--concurrency 16] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import resource
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


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(rubric: Path, data: Path, out: Path, endpoint: str | None) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stderr) of one whole command; `endpoint` None: no --otel."""
    env = {**os.environ, KEY_ENV: "bench-key"}
    command = [sys.executable, "-m", "autorubric_cli", "run", str(rubric), str(data)]
    command += ["--out", str(out), "--no-cache", "--format", "json"]
    if endpoint is not None:
        command.append("--otel")
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
    started, cpu = time.perf_counter(), cpu_of_children()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"run failed ({done.returncode}): {done.stderr[-500:]}")
    return elapsed, cpu_of_children() - cpu, done.stderr


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
    cpus: dict[str, list[float]] = {mode: [] for mode in MODES}
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
                elapsed, cpu, stderr = run_once(rubric, data, out, endpoints[mode])
                times[mode].append(elapsed)
                cpus[mode].append(cpu)
                if mode == "live receiver":
                    spans.append(len(receiver.spans) - before)
                if mode == "dead port":
                    warnings.append(sum("traces:" in line for line in stderr.splitlines()))
    print(
        f"{args.items} items x 3 criteria, judge latency {args.latency * 1000:.0f} ms, "
        f"concurrency {args.concurrency}; {args.runs} runs of the whole command per mode"
    )
    print(f"{'':<16}{'wall median s':>24}{'wall fastest s':>24}{'CPU median s':>24}")
    figures = {
        mode: (statistics.median(times[mode]), min(times[mode]), statistics.median(cpus[mode]))
        for mode in MODES
    }
    for mode in MODES:
        cells = [
            f"{value:>8.2f} {value - base:>+7.2f} {100 * (value - base) / base:>+6.1f}%"
            for value, base in zip(figures[mode], figures["without"], strict=True)
        ]
        print(f"{mode:<16}" + "".join(f"{cell:>24}" for cell in cells))
    print(f"of which importing the SDK and exporter: {import_s(args.runs):.3f} s")
    print(f"spans per live run: {sorted(set(spans))} (expected {args.items * 4 + 1})")
    print(f"warning lines per dead run: {sorted(set(warnings))} (target [1])")


if __name__ == "__main__":
    main()
