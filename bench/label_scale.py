"""Benchmark: the labelling page (docs/guides/labels.md) for 10,000 items.

Prints, for 10,000 items (5 criteria x 3 judges, the records of report_scale.py, 40-word
reasons, 150-word submissions; then the same with 1,500-word submissions, which the byte budget
caps): the wall time of `autorubric label DIR` (median of 3 runs), the file size, how many
items the page holds, and in headless Chromium the time until the first item is on screen and
the time to open an item (performance.now around the page's own `open`, 200 random items:
median and max). Targets: generated < 5 s, < 10 MB, an item opens in < 100 ms.

    python -m bench.label_scale [--items 10000]
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson
from playwright.sync_api import sync_playwright

from autorubric_cli.experiment.manifest import InputFile, load_manifest, save_manifest, sha256_file
from bench.html_scale import add_realistic_text, text
from bench.report_scale import write_experiment


def lengthen_submissions(directory: Path, words: int) -> None:
    rng = random.Random(2)
    dataset = directory / "dataset.jsonl"
    rows = [orjson.loads(line) for line in dataset.read_bytes().splitlines()]
    with dataset.open("wb") as out:
        for row in rows:
            row["submission"] = text(rng, words)
            out.write(orjson.dumps(row) + b"\n")
    manifest = load_manifest(directory)
    manifest.dataset = InputFile(path=str(dataset), sha256=sha256_file(dataset))
    save_manifest(directory, manifest)


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def generate(directory: Path) -> tuple[float, float, Path]:
    """Median wall and CPU seconds of `autorubric label` (CPU: the machine may be shared)."""
    page = directory / "label.html"
    walls, cpus = [], []
    for _ in range(3):
        started, cpu = time.perf_counter(), child_cpu()
        subprocess.run(
            [sys.executable, "-m", "autorubric_cli", "label", str(directory), "-o", str(page)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        walls.append(time.perf_counter() - started)
        cpus.append(child_cpu() - cpu)
    return statistics.median(walls), statistics.median(cpus), page


def in_browser(page_path: Path) -> tuple[int, float, float, float]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(page_path.as_uri())
        page.wait_for_selector("body[data-ready]", timeout=120_000)
        ready = float(page.get_attribute("body", "data-ready-ms") or "nan")
        count = page.evaluate("window.autorubricLabel.ids().length")
        rng = random.Random(3)
        opened = [
            page.evaluate(f"window.autorubricLabel.open({rng.randrange(count)})")
            for _ in range(200)
        ]
        browser.close()
    return count, ready, statistics.median(opened), max(opened)


def measure(directory: Path, label: str, items: int) -> None:
    wall, cpu, page = generate(directory)
    size = page.stat().st_size
    count, ready, median, worst = in_browser(page)
    print(
        f"{label}: `label` wall {wall:.2f} s, CPU {cpu:.2f} s (medians of 3; target < 5 s); "
        f"file {size / 1e6:.2f} MB (target < 10 MB); {count:,} of {items:,} items on the page; "
        f"first item on screen "
        f"{ready:.0f} ms after navigation; open an item: median {median:.2f} ms, max "
        f"{worst:.2f} ms over 200 (target < 100 ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "exp"
        write_experiment(directory, args.items)
        add_realistic_text(directory)
        measure(directory, f"{args.items:,} items, 150-word submissions", args.items)
        lengthen_submissions(directory, 1_500)
        measure(directory, f"{args.items:,} items, 1,500-word submissions", args.items)


if __name__ == "__main__":
    main()
