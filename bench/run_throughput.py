"""Benchmark: `autorubric run` throughput against the loopback judge server.

Default: 1,000 items x 3 criteria x 1 judge, server latency 100 ms, concurrency 16.
Ideal = calls x latency / concurrency = 3,000 x 0.1 / 16 = 18.75 s; target >= 0.87 of ideal.
Prints the grading time measured in-process (what the engine adds) and the whole CLI command
(including interpreter start-up and imports), median of --runs runs. The judge is `openai/` with
an `api_base`, so `transport: auto` picks the native transport (docs/guides/transports.md);
`--transport litellm` measures the same workload through litellm. It also prints how many judge
worker processes `workers: auto` started, and how soon after the command starts its first
request reaches the server (a one-item run, median of --runs).

In the same run, against the same server, it grades the same workload with the `autorubric`
Python library 1.6.1 (bench/library_driver.py, run by the interpreter of a throwaway venv that
has the library: it is not a project dependency) and prints ours/library (target >= 1.5):

    python3 -m venv /tmp/arlib && /tmp/arlib/bin/pip install autorubric==1.6.1
    python -m bench.run_throughput [--items 1000] [--latency 0.1] [--concurrency 16] [--runs 3]
        [--library-python /tmp/arlib/bin/python]

`--workload per-item` grades HealthBench's shape instead (docs/guides/per-item-rubrics.md): a
rubric file with no criteria, and items that each carry `--criteria` criteria of their own (in
HealthBench's `{criterion, points, tags}` form) and a conversation as `context`. The target there
is >= 0.85 of ideal, for 5,000 items x 11 criteria at 100 ms and concurrency 64 (ideal 85.9 s):

    python -m bench.run_throughput --workload per-item --items 5000 --criteria 11 \
        --concurrency 64 --runs 1

`--workload shared --criteria 11` grades the same calls with 11 shared criteria, to compare
the client CPU per call of the two shapes (what carrying a rubric per item costs).

`--compare-samples 3` instead grades the workload with `samples: 3` asked in one request (`n`)
and in three, side by side (runs alternating): billed tokens and the grading wall time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.judge_server import JudgeServerProcess

ROOT = Path(__file__).resolve().parents[1]

KEY_ENV = "AUTORUBRIC_BENCH_KEY"


def write_inputs(
    directory: Path,
    api_base: str,
    items: int,
    concurrency: int,
    workers: str = "auto",
    transport: str = "auto",
    workload: str = "shared",
    criteria: int = 3,
    samples: str = "",
) -> tuple[Path, Path]:
    """`samples`: more judge keys (`samples: 3, sample_request: one`), else one sample."""
    per_item = workload == "per-item"
    shared = (
        "[]"
        if per_item
        else "\n"
        + "".join(
            f"  - {{name: c{k}, requirement: {json.dumps(requirement(k))}"
            + (", weight: -10}\n" if k % 3 == 2 else "}\n")
            for k in range(criteria)
        )
    )
    rubric = directory / f"rubric{samples.count('one')}{len(samples)}.yaml"
    rubric.write_text(
        f"""criteria: {shared}
grader:
  judges:
    - {{model: openai/bench, id: bench, api_base: "{api_base}", api_key_env: {KEY_ENV},
        max_concurrency: {concurrency}, transport: {transport}{samples}}}
  concurrency: {concurrency}
  workers: {workers}
  seed: 1
  timeout: 30
"""
    )
    data = directory / "data.jsonl"
    with data.open("w") as handle:
        for i in range(items):
            row: dict[str, object] = {
                "id": f"b{i}",
                "submission": f"Answer number {i}: Paris is in France.",
            }
            if per_item:
                row["context"] = [{"role": "user", "content": f"Question {i}: where is Paris?"}]
                row["rubric"] = [
                    {
                        "criterion": f"{requirement(k)} (item {i})",
                        "points": -10 if k % 3 == 2 else k + 1,
                        "tags": [f"axis:a{k % 5}", "level:example"],
                    }
                    for k in range(criteria)
                ]
            handle.write(json.dumps(row) + "\n")
    return rubric, data


def requirement(k: int) -> str:
    """The k-th criterion: three kinds, as the shared default's (correct, complete, harmful)."""
    return ("The answer is correct", "The answer is complete", "The answer is harmful")[k % 3] + (
        f" ({k})" if k >= 3 else ""
    )


def grade_in_process(rubric: Path, data: Path, out: Path) -> tuple[float, float, int]:
    """(wall seconds, client CPU seconds, worker processes started) of one in-process run."""
    from autorubric_cli.experiment.session import RunOptions, start_run
    from autorubric_cli.judges.transports.workers import WorkerPool

    spawned = []
    spawn = WorkerPool._spawn

    def counted(pool: WorkerPool) -> object:
        spawned.append(1)
        return spawn(pool)

    WorkerPool._spawn = counted  # type: ignore[method-assign]
    started, cpu = time.perf_counter(), time.process_time()
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            start_run(rubric, data, RunOptions(out=out, cache=False))
    finally:
        WorkerPool._spawn = spawn  # type: ignore[method-assign]
    return time.perf_counter() - started, time.process_time() - cpu, len(spawned)


def first_request_s(directory: Path, transport: str) -> float:
    """Seconds from starting `autorubric run` (one item) to its first request at the server."""
    from tests.support.judge_server import JudgeServer

    directory.mkdir()
    with JudgeServer() as server:
        rubric, data = write_inputs(directory, server.api_base, 1, 1, "auto", transport)
        started = time.monotonic()
        whole_command(rubric, data, directory / f"first-{started}")
        return min(r.received_at for r in server.requests) - started


def whole_command(rubric: Path, data: Path, out: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "autorubric_cli",
            "run",
            str(rubric),
            str(data),
            "--out",
            str(out),
            "--format",
            "json",
            "--no-cache",  # measures paid calls; the call cache would serve reruns
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, KEY_ENV: "bench-key"},
    )
    return time.perf_counter() - started


def library_run(python: str, api_base: str, items: int, concurrency: int) -> float:
    """Wall seconds of the library's whole process (start-up and imports included, like ours)."""
    started = time.perf_counter()
    done = subprocess.run(
        [python, str(ROOT / "bench" / "library_driver.py"), api_base, "--items", str(items)]
        + ["--concurrency", str(concurrency)],
        check=True,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),  # not the repo root: the library must not see our modules
    )
    wall = time.perf_counter() - started
    report = json.loads(done.stdout.strip().splitlines()[-1])
    if report["failed"]:
        raise SystemExit(f"the library failed {report['failed']} of {report['items']} items")
    return wall


def billed(out: Path) -> tuple[int, int]:
    """(prompt, completion) tokens the run's records say were billed."""
    totals = [0, 0]
    for line in (out / "items.jsonl").read_text().splitlines():
        usage = json.loads(line)["usage"]
        totals[0] += usage.get("prompt_tokens", 0)
        totals[1] += usage.get("completion_tokens", 0)
    return totals[0], totals[1]


def compare_samples(args: argparse.Namespace, tmp: Path, api_base: str) -> None:
    """`samples: N` asked in one request (`n`) against one request a sample, side by side:
    requests, billed tokens and grading wall time (median of --runs, runs alternating)."""
    walls: dict[str, list[float]] = {"one": [], "separate": []}
    sent: dict[str, tuple[int, int]] = {}
    for run in range(args.runs):
        for mode in walls:
            extra = f", samples: {args.compare_samples}, sample_request: {mode}"
            rubric, data = write_inputs(
                tmp,
                api_base,
                args.items,
                args.concurrency,
                args.workers,
                args.transport,
                samples=extra,
            )
            out = tmp / f"{mode}{run}"
            walls[mode].append(grade_in_process(rubric, data, out)[0])
            sent[mode] = billed(out)
    for mode, times in walls.items():
        prompt, completion = sent[mode]
        print(
            f"samples {args.compare_samples}, sample_request {mode}: grading median "
            f"{statistics.median(times):.2f} s (runs: {', '.join(f'{t:.2f}' for t in times)}); "
            f"billed {prompt:,} prompt + {completion:,} completion tokens"
        )
    one, separate = statistics.median(walls["one"]), statistics.median(walls["separate"])
    print(
        f"one/separate: wall {one / separate:.2f}, prompt tokens "
        f"{sent['one'][0] / sent['separate'][0]:.3f}, completion tokens "
        f"{sent['one'][1] / sent['separate'][1]:.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--workers", default="auto", help='grader.workers: "auto", N, or 0 (in-process calls)'
    )
    parser.add_argument("--transport", default="auto", help="the judge's transport setting")
    parser.add_argument("--library-python", default="/tmp/arlib/bin/python")
    parser.add_argument("--workload", choices=("shared", "per-item"), default="shared")
    parser.add_argument("--criteria", type=int, default=None, help="default: 3 shared, 11 per item")
    parser.add_argument(
        "--compare-samples",
        type=int,
        default=0,
        help="only compare `samples: N` in one request against N requests",
    )
    args = parser.parse_args()
    if args.compare_samples:
        os.environ[KEY_ENV] = "bench-key"
        with tempfile.TemporaryDirectory() as tmp, JudgeServerProcess(latency=args.latency) as srv:
            compare_samples(args, Path(tmp), srv.api_base)
        return
    criteria = args.criteria or (11 if args.workload == "per-item" else 3)
    library = Path(args.library_python).exists() and (args.workload, criteria) == ("shared", 3)
    os.environ[KEY_ENV] = "bench-key"
    calls = args.items * criteria
    ideal = calls * args.latency / args.concurrency
    inner, outer, cpu, lib, spawned, first = [], [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp, JudgeServerProcess(latency=args.latency) as server:
        rubric, data = write_inputs(
            Path(tmp),
            server.api_base,
            args.items,
            args.concurrency,
            args.workers,
            args.transport,
            args.workload,
            criteria,
        )
        for run in range(args.runs):
            wall, used, workers = grade_in_process(rubric, data, Path(tmp) / f"in{run}")
            inner.append(wall)
            cpu.append(used)
            spawned.append(workers)
            first.append(first_request_s(Path(tmp) / f"first{run}", args.transport))
            outer.append(whole_command(rubric, data, Path(tmp) / f"out{run}"))
            if library:
                lib.append(
                    library_run(args.library_python, server.api_base, args.items, args.concurrency)
                )
    target = 0.85 if args.workload == "per-item" else 0.87
    shape = "own criteria each" if args.workload == "per-item" else "shared criteria"
    print(
        f"ideal {ideal:.2f} s ({args.items} items x {criteria} calls ({shape}) x "
        f"{args.latency * 1000:.0f} ms / concurrency {args.concurrency})"
    )
    runs = [("grading (in-process)", inner), ("whole `autorubric run`", outer)]
    if library:
        runs.append(("autorubric library 1.6.1 (whole process)", lib))
    for label, times in runs:
        median = statistics.median(times)
        print(
            f"{label}: median {median:.2f} s, ratio to ideal {ideal / median:.2f} "
            f"(runs: {', '.join(f'{t:.2f}' for t in times)}); target >= {target}"
        )
    if library:
        ratio = statistics.median(lib) / statistics.median(outer)
        print(
            f"whole CLI vs library, same run: {ratio:.2f}x the library's throughput; target >= 1.5"
        )
    else:
        print(
            f"library comparison skipped: {args.library_python} not found (see the docstring), "
            "or not the default shared workload"
        )
    print(
        f"client CPU per call (in-process, all layers, transport {args.transport}): median "
        f"{statistics.median(cpu) / calls * 1000:.2f} ms; one core allows at most "
        f"{calls / statistics.median(cpu):.0f} calls/s, ideal needs "
        f"{args.concurrency / args.latency:.0f}"
    )
    print(
        f"worker processes started (workers: {args.workers}): "
        f"{', '.join(map(str, spawned))} in the in-process runs"
    )
    print(
        f"first request at the server {statistics.median(first):.2f} s after the command "
        f"started (median; runs: {', '.join(f'{t:.2f}' for t in first)}); target <= 1 s"
    )
    print(f"server saw {server.request_count} requests, max in flight {server.max_in_flight}")


if __name__ == "__main__":
    main()
