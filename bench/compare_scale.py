"""Benchmark: `autorubric compare BASE NEW --format json` on two synthetic experiments.

Default: 100,000 paired items x 5 criteria (3 binary, 1 ordinal, 1 nominal) x 3 judges; NEW
differs from BASE on ~20% of the items. Target: under 10 s, with memory that does not grow with
the file (items.jsonl is streamed; only a few numbers per item are kept).
Scores are rubric-like (a few dozen distinct values) by default; `--continuous` makes every
score distinct (as with a length penalty), the bootstrap's slowest case.
Prints wall time and peak RSS of the `compare` subprocess for each size in --items.

    python -m bench.compare_scale [--items 25000,50000,100000] [--runs 1] [--continuous]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from bench.report_scale import JUDGES, vote, write_manifest

KINDS = [None, None, None, 4, 3]
NAMES = ["accurate", "complete", "harmful", "clarity", "tone"]
LABELS = {3: ["Poor", "Fair", "Good", "NA"], 4: ["Technical", "Casual", "Marketing"]}


def record(rng: random.Random, i: int, continuous: bool) -> dict[str, object]:
    criteria = []
    for name, multi in zip(NAMES, KINDS, strict=True):
        votes = [vote(rng, j, multi) for j in JUDGES]
        option = None
        if multi is not None:
            index = rng.randrange(multi)
            label = (LABELS[3] if multi == 4 else LABELS[4])[index]
            option = {"index": index, "label": label, "value": 0.5, "na": label == "NA"}
        criteria.append(
            {
                "name": name,
                "verdict": rng.choice(["MET", "UNMET", "CANNOT_ASSESS"]) if multi is None else None,
                "option": option,
                "aggregated_value": None,
                "reason": "r",
                "agreement": 1.0,
                "votes": votes,
            }
        )
    score = rng.random() if continuous else rng.randrange(41) / 40
    return {
        "id": f"i{i}",
        "index": i,
        "status": "ok",
        "score": score,
        "raw_score": score,
        "length_penalty": 0.0,
        "criteria": criteria,
        "judge_scores": {j: score for j in JUDGES},
        "usage": {"prompt_tokens": 4500, "completion_tokens": 600},
        "cost": 0.0015,
        "duration_s": 0.5,
        "error": None,
    }


def write_pair(root: Path, n_items: int, continuous: bool) -> tuple[Path, Path]:
    base, new = root / "base", root / "new"
    write_manifest(base, n_items, base.name)
    write_manifest(new, n_items, new.name)
    rng = random.Random(0)
    with (base / "items.jsonl").open("wb") as b, (new / "items.jsonl").open("wb") as n:
        for i in range(n_items):
            line = orjson.dumps(record(rng, i, continuous)) + b"\n"
            b.write(line)
            changed = rng.random() < 0.2
            n.write(orjson.dumps(record(rng, i, continuous)) + b"\n" if changed else line)
    return base, new


def cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(base: Path, new: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (all processes of the command) and peak RSS so far (MB)."""
    cpu = cpu_children()
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "autorubric_cli", "compare", str(base), str(new), "-f", "json"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    elapsed = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return elapsed, cpu_children() - cpu, peak


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", default="25000,50000,100000")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--continuous", action="store_true")
    args = parser.parse_args()
    for n_items in (int(x) for x in args.items.split(",")):
        with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
            base, new = write_pair(Path(tmp), n_items, args.continuous)
            size = (base / "items.jsonl").stat().st_size / 1e6
            times, cpus, peaks = [], [], []
            for _ in range(args.runs):
                elapsed, cpu, peak = measure(base, new)
                times.append(elapsed)
                cpus.append(cpu)
                peaks.append(peak)
            print(
                f"{n_items} paired items x 5 criteria ({size:.0f} MB per side, "
                f"{'continuous' if args.continuous else 'rubric-like'} scores): "
                f"compare {min(times):.2f} s wall, {min(cpus):.2f} s CPU (target < 10 s; "
                f"load average {os.getloadavg()[0]:.1f}); "
                f"peak RSS so far {max(peaks):.0f} MB"
            )


if __name__ == "__main__":
    main()
