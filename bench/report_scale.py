"""Benchmark: `autorubric report --format json` on a synthetic experiment.

Default: 100,000 items x 5 criteria x 3 judges. Target: under 15 s with peak RSS under 400 MB.
Prints wall time and peak RSS of the `report` subprocess (median of --runs runs).

    python -m bench.report_scale [--items 100000] [--runs 3]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from autorubric_cli.core.config import JudgeSpec, LLMConfig
from autorubric_cli.experiment.manifest import InputFile, Manifest, save_manifest, utc_now

RUBRIC = """
criteria:
  - {name: accurate, requirement: "Is accurate"}
  - {name: complete, requirement: "Is complete", weight: 5}
  - {name: harmful, requirement: "Contains harmful advice", weight: -10}
  - name: clarity
    requirement: "How clear?"
    options:
      - {label: Poor, value: 0.0}
      - {label: Fair, value: 0.5}
      - {label: Good, value: 1.0}
      - {label: NA, na: true}
  - name: tone
    requirement: "Register?"
    scale_type: nominal
    options:
      - {label: Technical, value: 1.0}
      - {label: Casual, value: 1.0}
      - {label: Marketing, value: 0.0}
"""
JUDGES = ["a", "b", "c"]


def vote(rng: random.Random, judge: str, multi: int | None) -> dict[str, object]:
    usage = {"prompt_tokens": 300, "completion_tokens": 40}
    base = {
        "judge": judge,
        "sample": 0,
        "reason": "synthetic",
        "error": None,
        "usage": usage,
        "cost": 0.0001,
    }
    if multi is None:
        return {
            **base,
            "verdict": rng.choice(["MET", "MET", "UNMET"]),
            "option_index": None,
            "shuffle_order": None,
        }
    order = list(range(multi))
    rng.shuffle(order)
    return {**base, "verdict": None, "option_index": rng.randrange(multi), "shuffle_order": order}


def write_manifest(directory: Path, n_items: int, name: str = "bench") -> None:
    """The experiment directory with its rubric copy and a completed manifest."""
    directory.mkdir(parents=True)
    (directory / "rubric.yaml").write_text(RUBRIC)
    config = LLMConfig(judges=[JudgeSpec(model=f"openai/{j}", id=j) for j in JUDGES], seed=1)
    now = utc_now()
    save_manifest(
        directory,
        Manifest(
            autorubric_version="bench",
            name=name,
            command=["bench"],
            created=now,
            updated=now,
            status="completed",
            seed=1,
            config=config.model_dump(mode="json"),
            rubric=InputFile(path=str(directory / "rubric.yaml"), sha256="0"),
            dataset=InputFile(path="synthetic", sha256="0"),
            items_total=n_items,
        ),
    )


def write_experiment(directory: Path, n_items: int) -> None:
    write_manifest(directory, n_items)
    rng = random.Random(0)
    kinds = [None, None, None, 4, 3]
    names = ["accurate", "complete", "harmful", "clarity", "tone"]
    with (directory / "items.jsonl").open("wb") as out:
        for i in range(n_items):
            criteria = []
            for name, multi in zip(names, kinds, strict=True):
                votes = [vote(rng, j, multi) for j in JUDGES]
                criteria.append(
                    {
                        "name": name,
                        "verdict": votes[0]["verdict"],
                        "option": None
                        if multi is None
                        else {"index": 0, "label": "x", "value": 0.0, "na": False},
                        "aggregated_value": None,
                        "reason": "r",
                        "agreement": 1.0,
                        "votes": votes,
                    }
                )
            record = {
                "id": f"i{i}",
                "index": i,
                "status": "ok",
                "score": rng.random(),
                "raw_score": 1.0,
                "length_penalty": 0.0,
                "criteria": criteria,
                "judge_scores": {j: rng.random() for j in JUDGES},
                "usage": {"prompt_tokens": 4500, "completion_tokens": 600},
                "cost": 0.0015,
                "duration_s": 0.5,
                "error": None,
                "word_counts": {"output": 200},
                "ground_truth": {"accurate": rng.choice(["MET", "UNMET"])},
            }
            out.write(orjson.dumps(record) + b"\n")


def measure(directory: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "autorubric_cli", "report", str(directory), "--format", "json"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    elapsed = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(peak_kb, before) / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "exp"
        t0 = time.perf_counter()
        write_experiment(directory, args.items)
        size = (directory / "items.jsonl").stat().st_size / 1e6
        print(
            f"synthetic items.jsonl: {args.items} items, {size:.0f} MB, "
            f"written in {time.perf_counter() - t0:.1f} s"
        )
        runs = [measure(directory) for _ in range(args.runs)]
    times = [t for t, _ in runs]
    print(
        f"report --format json: median {statistics.median(times):.2f} s "
        f"(runs: {', '.join(f'{t:.2f}' for t in times)}); target < 15 s"
    )
    print(f"peak RSS (max over runs): {max(r for _, r in runs):.0f} MB; target < 400 MB")


if __name__ == "__main__":
    main()
