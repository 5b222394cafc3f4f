"""Every dataset format, and the `autorubric` library's own files, grade exactly like JSONL.

Through the CLI with simulated judges (offline; answers seeded by item id and criterion, with
the ground truth as the truth), so equal inputs must give equal records.
"""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.support.cli import cli

ROOT = Path(__file__).resolve().parents[2]
DEMO_RUBRIC = ROOT / "rubrics" / "demo.yaml"
DEMO_DATA = ROOT / "datasets" / "demo.jsonl"
LIBRARY = ROOT / "tests" / "data" / "autorubric-1.6.1"
LIMIT = "10"
MAPPING = ["id=qid", "query=prompt", "submission=answer", "ground_truth=labels"]


def records(directory: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (directory / "items.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("duration_s")
    return sorted(rows, key=lambda r: r["index"])


def graded(rubric: Path, dataset: Path, out: Path, *extra: str) -> list[dict[str, Any]]:
    result = cli("run", rubric, dataset, "--out", out, "--format", "json", *extra)
    assert result.exit_code in (0, 1), result.stderr
    return records(out)


@pytest.fixture(scope="module")
def ungated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    text = DEMO_RUBRIC.read_text()
    path = tmp_path_factory.mktemp("rubric") / "demo.yaml"
    path.write_text(text[: text.index("gate:")])
    return path


@pytest.fixture(scope="module")
def baseline(ungated: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return graded(ungated, DEMO_DATA, tmp_path_factory.mktemp("b") / "exp", "--limit", LIMIT)


def renamed_rows() -> list[dict[str, Any]]:
    """The demo rows with our field names replaced; metadata.model moved to the top level."""
    rows = []
    for line in DEMO_DATA.read_text().splitlines():
        row = json.loads(line)
        out = {
            "qid": row["id"],
            "prompt": row["query"],
            "answer": row["submission"],
            "labels": row["ground_truth"],
            "model": row["metadata"]["model"],
        }
        if "human_ratings" in row:
            out["human_ratings"] = row["human_ratings"]
        rows.append(out)
    return rows


def flat(row: dict[str, Any]) -> dict[str, Any]:
    """Nested objects as dotted columns; human ratings as JSON text cells."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        if isinstance(value, dict):
            for inner, cell in value.items():
                text = json.dumps(cell) if key == "human_ratings" else cell
                out[f"{key}.{inner}"] = text
        else:
            out[key] = value
    return out


def write_csv(path: Path, delimiter: str) -> None:
    rows = [flat(r) for r in renamed_rows()]
    columns = list(dict.fromkeys(c for r in rows for c in r))
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, columns, delimiter=delimiter)
        writer.writeheader()
        writer.writerows(rows)


def write_file(path: Path) -> None:
    rows = renamed_rows()
    name = path.name
    if name.endswith(".csv"):
        write_csv(path, ",")
    elif name.endswith(".tsv"):
        write_csv(path, "\t")
    elif name.endswith(".json"):
        path.write_text(json.dumps(rows, indent=1))
    elif name.endswith(".jsonl.gz"):
        path.write_bytes(gzip.compress(b"".join(json.dumps(r).encode() + b"\n" for r in rows)))
    else:
        flats = [flat(r) for r in rows]
        columns = list(dict.fromkeys(c for r in flats for c in r))
        table = pa.Table.from_pylist([{c: r.get(c) for c in columns} for r in flats])
        pq.write_table(table, path, row_group_size=4)


@pytest.mark.parametrize(
    "name", ["demo.csv", "demo.tsv", "demo.json", "demo.parquet", "demo.jsonl.gz"]
)
def test_demo_in_every_format_with_renamed_fields_grades_like_jsonl(
    tmp_path: Path, ungated: Path, baseline: list[dict[str, Any]], name: str
) -> None:
    dataset = tmp_path / name
    write_file(dataset)
    flags = [arg for m in MAPPING for arg in ("--field", m)]
    got = graded(ungated, dataset, tmp_path / "exp", "--limit", LIMIT, *flags)
    assert len(got) == int(LIMIT)
    assert got == baseline
    manifest = json.loads((tmp_path / "exp" / "manifest.json").read_text())
    assert manifest["dataset_fields"] == dict(m.split("=") for m in MAPPING)


def test_resume_reads_with_the_recorded_mapping(tmp_path: Path, ungated: Path) -> None:
    dataset = tmp_path / "demo.csv"
    write_file(dataset)
    flags = [arg for m in MAPPING for arg in ("--field", m)]
    out = tmp_path / "exp"
    full = graded(ungated, dataset, out, "--limit", LIMIT, *flags)
    lines = (out / "items.jsonl").read_text().splitlines(keepends=True)
    (out / "items.jsonl").write_text("".join(lines[:4]))
    result = cli("resume", out, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    assert records(out) == full


def test_rubric_dataset_fields_section_is_the_default_mapping(
    tmp_path: Path, ungated: Path, baseline: list[dict[str, Any]]
) -> None:
    dataset = tmp_path / "demo.json"
    write_file(dataset)
    rubric = tmp_path / "mapped.yaml"
    fields = ", ".join(f"{t}: {s}" for t, s in (m.split("=") for m in MAPPING))
    rubric.write_text(ungated.read_text() + f"dataset:\n  fields: {{{fields}}}\n")
    assert graded(rubric, dataset, tmp_path / "exp", "--limit", LIMIT) == baseline


def test_a_bad_csv_row_names_file_row_and_key(tmp_path: Path, ungated: Path) -> None:
    dataset = tmp_path / "demo.csv"
    write_file(dataset)
    text = dataset.read_text().replace("Excellent", "Superb", 1)
    dataset.write_text(text)
    flags = [arg for m in MAPPING for arg in ("--field", m)]
    result = cli("check", ungated, dataset, *flags)
    assert result.exit_code == 2
    line = 1 + next(i for i, row in enumerate(text.splitlines()) if "Superb" in row)
    assert result.stderr.startswith(f"autorubric: {dataset}:{line}: labels.clarity") or (
        f"{dataset}:{line}: ground_truth.clarity" in result.stderr
    ), result.stderr
    assert not (tmp_path / "experiments").exists()


# --- the autorubric library's files (written by autorubric 1.6.1, see make_files.py there) ---


def our_equivalent(tmp_path: Path) -> tuple[Path, Path]:
    """Our YAML + JSONL holding what the library's RubricDataset JSON holds."""
    data = json.loads((LIBRARY / "rubric_dataset.json").read_text())
    rubric = tmp_path / "ours.yaml"
    rubric.write_text(json.dumps({"name": data["name"], "criteria": data["rubric"]}, indent=1))
    names = [c["name"] for c in data["rubric"]]
    lines = [
        json.dumps(
            {
                "id": str(i),
                "submission": item["submission"],
                "query": data["prompt"],
                "ground_truth": dict(zip(names, item["ground_truth"], strict=True)),
                "metadata": {"description": item["description"]},
            }
        )
        for i, item in enumerate(data["items"], start=1)
    ]
    dataset = tmp_path / "ours.jsonl"
    dataset.write_text("\n".join(lines) + "\n")
    return rubric, dataset


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    tmp_path = tmp_path_factory.mktemp("ours")
    ours_rubric, ours_data = our_equivalent(tmp_path)
    return graded(ours_rubric, ours_data, tmp_path / "ours", *JUDGES)


JUDGES = [
    "--judge",
    "simulated/a",
    "--judge",
    "simulated/b",
    "--judge",
    "simulated/c",
    "--seed",
    "5",
]


@pytest.mark.parametrize(
    "rubric_name", ["rubric_dataset.json", "rubric_sections.yaml", "rubric_list.yaml"]
)
def test_library_files_grade_like_our_yaml_and_jsonl(
    tmp_path: Path, ours: list[dict[str, Any]], rubric_name: str
) -> None:
    theirs = graded(
        LIBRARY / rubric_name, LIBRARY / "rubric_dataset.json", tmp_path / "lib", *JUDGES
    )
    assert len(theirs) == 6
    assert theirs == ours
    verdicts = [c["verdict"] or c["option"]["label"] for r in theirs for c in r["criteria"]]
    assert len(set(verdicts)) > 2
