"""Benchmark: the HTML report (docs/guides/html-report.md) for large experiments.

Prints, for N items (default 100,000 x 5 criteria x 3 judges, the records of report_scale.py):
the time to build the report JSON and fold (what `report` already does), the time to render the
page from it (items sample, plots, templates), the wall time of `report --format html` in a
subprocess, and the file size. Then a 1,000-item experiment with realistic text (40-word
reasons on every vote, 150-word submissions in the dataset) for the 5 MB cap.
Targets: the HTML for 100,000 items renders in < 10 s; the file stays under 5 MB.

    python -m bench.html_scale [--items 100000]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from autorubric_cli.experiment.manifest import InputFile, load_manifest, save_manifest, sha256_file
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.report.build import build_report_and_fold
from autorubric_cli.report.html.page import render_report_html
from bench.report_scale import write_experiment

WORDS = [
    "the",
    "answer",
    "states",
    "cell",
    "energy",
    "density",
    "correctly",
    "but",
    "omits",
    "cycle",
    "life",
    "and",
    "its",
    "claim",
    "about",
    "thermal",
    "runaway",
    "is",
    "vague",
    "so",
    "the",
    "requirement",
    "is",
    "only",
    "partly",
    "met",
    "overall",
]


def text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def add_realistic_text(directory: Path) -> None:
    """40-word reasons on every vote and criterion; a dataset of 150-word submissions."""
    rng = random.Random(1)
    lines = (directory / "items.jsonl").read_bytes().splitlines()
    dataset = directory / "dataset.jsonl"
    with (directory / "items.jsonl").open("wb") as out, dataset.open("wb") as data:
        for line in lines:
            record = orjson.loads(line)
            for criterion in record["criteria"]:
                criterion["reason"] = text(rng, 40)
                for vote in criterion["votes"]:
                    vote["reason"] = text(rng, 40)
            out.write(orjson.dumps(record) + b"\n")
            item = {"id": record["id"], "submission": text(rng, 150), "query": text(rng, 12)}
            data.write(orjson.dumps(item) + b"\n")
    manifest = load_manifest(directory)
    manifest.dataset = InputFile(path=str(dataset), sha256=sha256_file(dataset))
    save_manifest(directory, manifest)


def measure(directory: Path, label: str) -> None:
    started = time.perf_counter()
    experiment = open_experiment(directory)
    report, fold = build_report_and_fold(experiment)
    built = time.perf_counter()
    page = render_report_html(report, experiment, fold)
    rendered = time.perf_counter()
    started_cli = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "autorubric_cli", "report", str(directory), "--format", "html"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    cli_s = time.perf_counter() - started_cli
    size = (directory / "report.html").stat().st_size
    print(
        f"{label}: report JSON + fold {built - started:.2f} s; HTML render "
        f"{rendered - built:.2f} s (target < 10 s); `report --format html` wall {cli_s:.2f} s; "
        f"file {size / 1e6:.2f} MB ({len(page.encode()) / 1e6:.2f} MB in-process; cap 5 MB)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "big"
        write_experiment(big, args.items)
        measure(big, f"{args.items:,} items")
        small = Path(tmp) / "small"
        write_experiment(small, 1_000)
        add_realistic_text(small)
        measure(small, "1,000 items with 40-word reasons and 150-word submissions")


if __name__ == "__main__":
    main()
