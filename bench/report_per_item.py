"""Benchmark: the report of per-item rubrics against today's shared-criteria report, side by side.

Writes two synthetic experiments of --items items (default 100,000), each record as the product
writes it (the 200-word submission and the query included):

- shared: the 5 shared criteria x 3 judges of bench/report_scale.py;
- per-item: 12 criteria of each item's own (HealthBench's shape: points from -10 to 10, an
  `axis:` tag and a `level:` tag on each, a `theme:` tag on each item, a one-turn context),
  graded by --item-judges judges (default 3, as the shared run; HealthBench grades with 1).

Then runs `report --format json` on each in turn, --runs times, and prints the medians of wall
time, CPU time (report and fold workers) and peak RSS of each, and the per-item / shared ratios
(target, docs/design/typed-report.md: at most 1.5 each).

    python -m bench.report_per_item [--items 100000] [--runs 3] [--item-judges 3] [--directory D]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from autorubric_cli.core.config import LLMConfig
from autorubric_cli.core.records import ItemRecord
from bench.report_scale import (
    QUERY,
    Run,
    answer_text,
    measure,
    vote,
    write_experiment,
    write_manifest,
)

CRITERIA = 12
AXES = ["accuracy", "completeness", "communication_quality", "context_awareness", "safety"]
THEMES = ["emergency", "hedging", "global_health", "context", "expertise", "communication", "dx"]
POINTS = [-10, -7, -5, -2, 2, 3, 5, 7, 8, 10]
TARGET = 1.5


def requirement(rng: random.Random, n: int) -> str:
    return f"Criterion {n}: " + answer_text(rng.randrange(1000), words=14)


def item_criterion(rng: random.Random, n: int, judges: list[str]) -> dict[str, Any]:
    votes = [vote(rng, j, None) for j in judges]
    return {
        "name": f"i{n}",
        "verdict": votes[0]["verdict"],
        "option": None,
        "aggregated_value": None,
        "reason": "r",
        "agreement": 1.0,
        "votes": votes,
        "requirement": requirement(rng, n),
        "weight": rng.choice(POINTS),
        "tags": [f"axis:{rng.choice(AXES)}", rng.choice(["level:example", "level:cluster"])],
        "options": None,
    }


def per_item_record(rng: random.Random, i: int, judges: list[str]) -> dict[str, Any]:
    """Item i's record as the product writes it for an item with its own 12 criteria."""
    record = {
        "id": f"hb{i}",
        "index": i,
        "status": "ok",
        "score": rng.uniform(-0.5, 1.0),
        "raw_score": 1.0,
        "length_penalty": 0.0,
        "criteria": [item_criterion(rng, n, judges) for n in range(1, CRITERIA + 1)],
        "judge_scores": {j: rng.random() for j in judges},
        "usage": {"prompt_tokens": 9000, "completion_tokens": 1200},
        "cost": 0.003,
        "duration_s": 0.5,
        "error": None,
        "word_counts": {"output": 200},
        "submission": answer_text(i),
        "query": None,
        "context": [{"role": "user", "content": QUERY + " " + answer_text(i + 7, words=30)}],
        "tags": [f"theme:{rng.choice(THEMES)}"],
    }
    return ItemRecord.model_validate(record).model_dump(mode="json")


def write_per_item(directory: Path, n_items: int, judges: list[str]) -> None:
    config = LLMConfig.model_validate(
        {"judges": [{"model": f"openai/{j}", "id": j} for j in judges], "seed": 1, "clip": "mean"}
    )
    write_manifest(directory, n_items, "per-item", "criteria: []\ngrader:\n  clip: mean\n", config)
    rng = random.Random(0)
    with (directory / "items.jsonl").open("wb") as out:
        for i in range(n_items):
            out.write(orjson.dumps(per_item_record(rng, i, judges)) + b"\n")


def prepared(root: Path, n_items: int, item_judges: int) -> tuple[Path, Path]:
    shared, own = root / "shared", root / f"per-item-{item_judges}j"
    for directory, write in (
        (shared, lambda d: write_experiment(d, n_items)),
        (own, lambda d: write_per_item(d, n_items, [f"j{k}" for k in range(item_judges)])),
    ):
        items = directory / "items.jsonl"
        if not items.exists():
            started = time.perf_counter()
            write(directory)
            print(f"wrote {items} in {time.perf_counter() - started:.0f} s", flush=True)
        print(f"{directory.name}: {items.stat().st_size / 1e6:.0f} MB", flush=True)
    return shared, own


def medians(runs: list[Run]) -> tuple[float, float, float]:
    return (
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        statistics.median(r.rss for r in runs),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--item-judges", type=int, default=3)
    parser.add_argument("--directory", type=Path, help="keep (or reuse) the experiments here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        shared, own = prepared(args.directory or Path(tmp), args.items, args.item_judges)
        runs: dict[str, list[Run]] = {"shared": [], "per-item": []}
        for _ in range(args.runs):  # in turn, so a loaded machine slows both alike
            runs["shared"].append(measure(shared))
            runs["per-item"].append(measure(own))
    for name, measured in runs.items():
        wall, cpu, rss = medians(measured)
        each = ", ".join(f"{r.wall:.1f}" for r in measured)
        print(f"[{name}] wall {wall:.2f} s (runs {each}), CPU {cpu:.2f} s, peak RSS {rss:.0f} MB")
    ratios = [
        a / b for a, b in zip(medians(runs["per-item"]), medians(runs["shared"]), strict=True)
    ]
    verdict = "within" if max(ratios) <= TARGET else "over"
    print(
        f"per-item / shared ({args.items:,} items, {CRITERIA} item criteria x "
        f"{args.item_judges} judges vs 5 x 3): wall {ratios[0]:.2f}, CPU {ratios[1]:.2f}, "
        f"peak RSS {ratios[2]:.2f} ({verdict} the {TARGET} target)"
    )


if __name__ == "__main__":
    main()
