"""Benchmark: `autorubric report --format json` on a synthetic experiment.

Default: 100,000 items x 5 criteria x 3 judges, each record written as the product writes it
(every field, the 200-word submission and the query included; a ~680 MB items.jsonl). Targets
(docs/design/typed-report.md): under 12 s wall and 300 MB peak RSS here. Prints, as medians of
--runs runs, the wall time, the CPU time and the peak RSS of the `report` process and its fold
workers, each with its ratio to the target, and the JSON's sha256 (the same whatever the tree).

`--cluster G` gives every record `metadata.topic` (G topics, items spread round-robin) and runs
the report with `--cluster metadata.topic` (clustered standard errors for the score and every
criterion); a reused `--directory` must have been written with the same G.

`--tree DIR` (repeatable) runs the report with DIR's code on the same file, the trees taking
turns run by run, so a loaded machine slows them alike: compare the ratio. `--directory DIR`
keeps the experiment there (and reuses it when it is already there).

    python -m bench.report_scale [--items 100000] [--runs 3] [--cluster 2000] [--tree . ...]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

from autorubric_cli.core.config import JudgeSpec, LLMConfig
from autorubric_cli.core.records import ItemRecord
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


def write_manifest(
    directory: Path,
    n_items: int,
    name: str = "bench",
    rubric: str = RUBRIC,
    config: LLMConfig | None = None,
) -> None:
    """The experiment directory with its rubric copy and a completed manifest (`config`: the
    grader's settings, default the three judges of JUDGES)."""
    directory.mkdir(parents=True)
    (directory / "rubric.yaml").write_text(rubric)
    if config is None:
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
            seed=config.seed,
            config=config.model_dump(mode="json"),
            rubric=InputFile(path=str(directory / "rubric.yaml"), sha256="0"),
            dataset=InputFile(path="synthetic", sha256="0"),
            items_total=n_items,
        ),
    )


OPTIONS: dict[str, list[str]] = {
    "clarity": ["Poor", "Fair", "Good", "NA"],
    "tone": ["Technical", "Casual", "Marketing"],
}
VALUES: dict[str, list[float | None]] = {"clarity": [0.0, 0.5, 1.0, None], "tone": [1.0, 1.0, 0.0]}


ANSWER = """the cell reaches about 270 Wh/kg while iron phosphate lasts longer and stays cooler
under load so most buses and stationary packs use it today although nickel chemistries win on
range per kilogram in cars"""
WORDS = ANSWER.split()
QUERY = "Compare NMC and LFP chemistries for an electric bus fleet."


def answer_text(i: int, words: int = 200) -> str:
    """A 200-word answer (no draw from the record's random stream: votes stay as they were)."""
    return " ".join(WORDS[(i + k) % len(WORDS)] for k in range(words))


def synthetic_record(rng: random.Random, i: int, clusters: int = 0) -> dict[str, object]:
    """Item i's record as the product writes it: every field of ItemRecord, defaults included."""
    criteria = []
    for name in ("accurate", "complete", "harmful", "clarity", "tone"):
        labels = OPTIONS.get(name)
        votes = [vote(rng, j, None if labels is None else len(labels)) for j in JUDGES]
        index = votes[0]["option_index"]
        option = None
        if labels is not None and isinstance(index, int):
            value = VALUES[name][index]
            option = {"index": index, "label": labels[index], "value": value, "na": value is None}
        criteria.append(
            {
                "name": name,
                "verdict": votes[0]["verdict"],
                "option": option,
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
        # what was graded, as records keep it (docs/reference/experiment-directory.md)
        "submission": answer_text(i),
        "query": QUERY,
    }
    if clusters:
        record["metadata"] = {"topic": f"t{i % clusters}"}
    return ItemRecord.model_validate(record).model_dump(mode="json")


def write_experiment(directory: Path, n_items: int, clusters: int = 0) -> None:
    write_manifest(directory, n_items)
    rng = random.Random(0)
    with (directory / "items.jsonl").open("wb") as out:
        for i in range(n_items):
            out.write(orjson.dumps(synthetic_record(rng, i, clusters)) + b"\n")


WALL_TARGET_S = 12.0
RSS_TARGET_MB = 300.0


@dataclass(frozen=True)
class Run:
    wall: float  # seconds
    cpu: float  # seconds of the report and its fold workers: the steadier figure when shared
    rss: float  # MB, the largest of the report and its fold workers
    digest: str  # sha256 of the JSON printed


def measure(directory: Path, tree: str | None = None, flags: tuple[str, ...] = ()) -> Run:
    """One `report --format json` run, with `tree`'s code when given: PYTHONPATH and the
    working directory both point at it (`python -m` puts the working directory first)."""
    env = dict(os.environ)
    cwd = None
    if tree is not None:
        cwd = Path(tree).resolve()
        env["PYTHONPATH"] = str(cwd)
    command = [sys.executable, "-m", "autorubric_cli", "report", str(directory), "--format", "json"]
    command += flags
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.PIPE)
    assert process.stdout is not None
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)  # this run's rusage, its fold workers included
    elapsed = time.perf_counter() - started
    process.stdout.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1, 3):
        raise SystemExit(f"report failed with exit code {process.returncode}")
    cpu = usage.ru_utime + usage.ru_stime
    return Run(elapsed, cpu, usage.ru_maxrss / 1024, hashlib.sha256(out).hexdigest()[:12])


def summary(label: str, runs: list[Run]) -> str:
    wall = statistics.median(r.wall for r in runs)
    rss = statistics.median(r.rss for r in runs)
    return (
        f"[{label}] report --format json, {len(runs)} runs: "
        f"wall median {wall:.2f} s (runs {', '.join(f'{r.wall:.2f}' for r in runs)}), "
        f"{wall / WALL_TARGET_S:.2f} of the {WALL_TARGET_S:.0f} s target; "
        f"CPU median {statistics.median(r.cpu for r in runs):.2f} s; "
        f"peak RSS median {rss:.0f} MB (max {max(r.rss for r in runs):.0f}), "
        f"{rss / RSS_TARGET_MB:.2f} of the {RSS_TARGET_MB:.0f} MB target; "
        f"json sha256 {', '.join(sorted({r.digest for r in runs}))}"
    )


def prepared(directory: Path, n_items: int, clusters: int = 0) -> None:
    """The synthetic experiment in `directory`, written unless it is already there."""
    items = directory / "items.jsonl"
    if items.exists():
        print(f"reusing {items} ({items.stat().st_size / 1e6:.0f} MB)")
        return
    t0 = time.perf_counter()
    write_experiment(directory, n_items, clusters)
    print(
        f"synthetic items.jsonl: {n_items} items, {items.stat().st_size / 1e6:.0f} MB, "
        f"written in {time.perf_counter() - t0:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tree", action="append", help="run the report with this tree's code")
    parser.add_argument("--directory", type=Path, help="keep (or reuse) the experiment here")
    parser.add_argument("--cluster", type=int, default=0, metavar="G", help="G metadata.topic")
    args = parser.parse_args()
    flags = ("--cluster", "metadata.topic") if args.cluster else ()
    trees: list[str | None] = args.tree or [None]
    runs: dict[str | None, list[Run]] = {t: [] for t in trees}
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.directory or Path(tmp) / "exp"
        prepared(directory, args.items, args.cluster)
        for _ in range(args.runs):
            for tree in trees:
                runs[tree].append(measure(directory, tree, flags))
    for tree, measured in runs.items():
        print(summary(tree or "this interpreter", measured))
    first = trees[0]
    for tree in trees[1:]:
        walls = [statistics.median(r.wall for r in runs[t]) for t in (first, tree)]
        cpus = [statistics.median(r.cpu for r in runs[t]) for t in (first, tree)]
        ratios = f"wall {walls[0] / walls[1]:.2f}, CPU {cpus[0] / cpus[1]:.2f}"
        print(f"ratio {first} / {tree}: {ratios}")


if __name__ == "__main__":
    main()
