"""Benchmark: `llm_calls: per_item` vs `per_criterion` (docs/guides/per-item.md) on the demo rubric.

The demo rubric (7 criteria) and dataset (48 items), with its simulated judges replaced by one
judge on the loopback server (a separate process, fixed latency per call), graded by the CLI in
both modes with no cache. Prints prompt and completion tokens (the server counts words) and
the wall time of each mode (the whole command, and the grading alone from the manifest), then
the per_criterion / per_item ratios.

    python -m bench.per_item [--latency 0.2] [--concurrency 8] [--samples 1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import yaml

from tests.support.judge_server import JudgeServerProcess

ROOT = Path(__file__).resolve().parents[1]

KEY_ENV = "AUTORUBRIC_BENCH_KEY"


def bench_rubric(directory: Path, api_base: str, concurrency: int, samples: int) -> Path:
    rubric = yaml.safe_load((ROOT / "rubrics" / "demo.yaml").read_text())
    rubric["grader"]["judges"] = [
        {
            "model": "openai/bench-judge",
            "id": "bench",
            "api_base": api_base,
            "api_key_env": KEY_ENV,
            "samples": samples,
            "max_concurrency": concurrency,
        }
    ]
    rubric["grader"]["concurrency"] = concurrency
    rubric.pop("gate", None)
    path = directory / "rubric.yaml"
    path.write_text(yaml.safe_dump(rubric))
    return path


def run_mode(rubric: Path, out: Path, mode: str) -> tuple[dict, float, float]:
    env = {**os.environ, KEY_ENV: "bench-key", "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "autorubric_cli", "run", rubric, ROOT / "datasets" / "demo.jsonl"]
        + ["--out", str(out), "--no-cache", "--llm-calls", mode, "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    if result.returncode not in (0, 1):
        raise SystemExit(f"{mode} run failed ({result.returncode}): {result.stderr[-2000:]}")
    manifest = json.loads((out / "manifest.json").read_text())
    run = manifest["runs"][0]
    grading = (
        datetime.fromisoformat(run["finished"]) - datetime.fromisoformat(run["started"])
    ).total_seconds()
    return json.loads((out / "report.json").read_text()), wall, grading


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--samples", type=int, default=1)
    args = parser.parse_args()
    figures = {}
    with tempfile.TemporaryDirectory() as tmp, JudgeServerProcess(latency=args.latency) as server:
        rubric = bench_rubric(Path(tmp), server.api_base, args.concurrency, args.samples)
        for mode in ("per_criterion", "per_item"):
            report, wall, grading = run_mode(rubric, Path(tmp) / mode, mode)
            figures[mode] = (report, wall, grading)
    print(
        f"demo rubric, 48 items, 7 criteria, latency {args.latency}s, "
        f"concurrency {args.concurrency}"
    )
    rows = {}
    for mode, (report, wall, grading) in figures.items():
        usage = report["usage"]
        rows[mode] = (usage["prompt_tokens"], usage["completion_tokens"], wall, grading)
        print(
            f"{mode:>14}: prompt tokens {usage['prompt_tokens']:>8,}  completion tokens "
            f"{usage['completion_tokens']:>6,}  wall {wall:6.2f} s (grading {grading:6.2f} s)  "
            f"score.mean "
            f"{report['score']['mean']:.3f}"
        )
    pc, pi = rows["per_criterion"], rows["per_item"]
    print(
        f"ratios per_criterion / per_item: prompt tokens {pc[0] / pi[0]:.2f}x  completion "
        f"tokens {pc[1] / pi[1]:.2f}x  total tokens {(pc[0] + pc[1]) / (pi[0] + pi[1]):.2f}x  "
        f"wall time {pc[2] / pi[2]:.2f}x  grading time {pc[3] / pi[3]:.2f}x"
    )


if __name__ == "__main__":
    main()
