"""Items/s of each dataset reader (docs/reference/dataset-files.md) through `iter_items`, the path
`run` uses.

Writes N rows (default 20,000; `--rows 1000000` for the issue's full size) in every format,
then reads each `--repeat` times and prints the median items/s and the CSV/JSONL ratio
(the issue asks for CSV and JSONL within 2x of each other).

    python -m bench.readers [--rows N] [--repeat R]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import statistics
import tempfile
import time
from pathlib import Path

from autorubric_cli.loading.dataset import iter_items
from autorubric_cli.loading.rubric_loader import parse_rubric

RUBRIC = parse_rubric(
    "criteria:\n  - {name: correct, requirement: r}\n  - name: tone\n    requirement: t\n"
    "    options: [{label: Dry, value: 0.0}, {label: Warm, value: 1.0}]\n",
    "bench.yaml",
)


def row(i: int) -> dict:
    return {
        "id": f"item-{i}",
        "submission": f"An answer of about twenty words for item {i}, comparing NMC and LFP cells "
        "on energy density and cycle life.",
        "query": "Compare NMC and LFP.",
        "ground_truth": {"correct": "MET" if i % 3 else "UNMET", "tone": "Warm"},
        "metadata": {"model": f"m{i % 4}"},
    }


def write_all(directory: Path, rows: int) -> dict[str, Path]:
    paths = {name: directory / f"data.{name}" for name in ("jsonl", "jsonl.gz", "csv", "tsv")}
    columns = [
        "id",
        "submission",
        "query",
        "ground_truth.correct",
        "ground_truth.tone",
        "metadata.model",
    ]
    with (
        paths["jsonl"].open("w") as jsonl,
        gzip.open(paths["jsonl.gz"], "wt", compresslevel=1) as gz,
        paths["csv"].open("w", newline="") as c,
        paths["tsv"].open("w", newline="") as t,
    ):
        writers = [csv.writer(c), csv.writer(t, delimiter="\t")]
        for w in writers:
            w.writerow(columns)
        for i in range(rows):
            r = row(i)
            line = json.dumps(r) + "\n"
            jsonl.write(line)
            gz.write(line)
            cells = [r["id"], r["submission"], r["query"], *r["ground_truth"].values(), "m"]
            for w in writers:
                w.writerow(cells)
    if rows <= 200_000:
        paths["json"] = directory / "data.json"
        paths["json"].write_text(json.dumps([row(i) for i in range(rows)]))
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return paths
    paths["parquet"] = directory / "data.parquet"
    writer = None
    for start in range(0, rows, 100_000):
        chunk = [
            {
                "id": r["id"],
                "submission": r["submission"],
                "query": r["query"],
                "ground_truth.correct": r["ground_truth"]["correct"],
                "ground_truth.tone": r["ground_truth"]["tone"],
                "metadata.model": "m",
            }
            for r in map(row, range(start, min(start + 100_000, rows)))
        ]
        table = pa.Table.from_pylist(chunk)
        writer = writer or pq.ParquetWriter(paths["parquet"], table.schema)
        writer.write_table(table, row_group_size=50_000)
    if writer is not None:
        writer.close()
    return paths


def items_per_second(path: Path, repeat: int) -> tuple[float, int]:
    rates = []
    count = 0
    for _ in range(repeat):
        started = time.perf_counter()
        count = sum(1 for _ in iter_items(path, RUBRIC))
        rates.append(count / (time.perf_counter() - started))
    return statistics.median(rates), count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_all(Path(tmp), args.rows)
        rates = {}
        for name, path in paths.items():
            rate, count = items_per_second(path, args.repeat)
            assert count == args.rows, (name, count)
            rates[name] = rate
            print(f"{name:9s} {rate:12,.0f} items/s  ({count:,} rows, median of {args.repeat})")
    ratio = max(rates["csv"], rates["jsonl"]) / min(rates["csv"], rates["jsonl"])
    print(f"csv/jsonl: {rates['csv'] / rates['jsonl']:.2f}x (within 2x: {ratio <= 2})")


if __name__ == "__main__":
    main()
