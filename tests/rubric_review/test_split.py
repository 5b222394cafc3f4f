"""`split`: disjoint, complete, stratified and seeded, in every dataset format, never over an
existing file without --force; the allocation rule on random strata (hypothesis)."""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autorubric_cli.core.split import split_indices
from autorubric_cli.loading.readers import iter_records
from autorubric_cli.rubric_review.split import pattern
from tests.support.cli import cli
from tests.support.fuzz_inputs import inspect_eval_bytes, inspect_log, rubric_dataset_bytes

LABELS = [("MET", "Good"), ("MET", "Bad"), ("UNMET", "Good"), ("UNMET", "Bad"), ("MET", "Good")]


def rows(n: int = 40) -> list[dict[str, Any]]:
    """Label patterns in uneven shares (MET/Good twice as common), a few unlabelled items."""
    out = []
    for i in range(n):
        row: dict[str, Any] = {"id": f"q{i:02d}", "submission": f"answer {i}, with a comma"}
        if i % 10 != 9:
            a, b = LABELS[i % len(LABELS)]
            row["ground_truth"] = {"a": a, "b": b}
        out.append(row)
    return out


def write_jsonl(path: Path, data: list[dict[str, Any]]) -> bytes:
    raw = b"".join(json.dumps(r).encode() + b"\n" for r in data)
    path.write_bytes(gzip.compress(raw, mtime=0) if path.suffix == ".gz" else raw)
    return raw


def write_csv(path: Path, data: list[dict[str, Any]], delimiter: str) -> None:
    sink = io.StringIO()
    writer = csv.writer(sink, delimiter=delimiter)
    writer.writerow(["id", "submission", "ground_truth.a", "ground_truth.b"])
    for row in data:
        truth = row.get("ground_truth", {})
        writer.writerow([row["id"], row["submission"], truth.get("a", ""), truth.get("b", "")])
    raw = sink.getvalue().encode()
    path.write_bytes(gzip.compress(raw, mtime=0) if path.suffix == ".gz" else raw)


def write_parquet(path: Path, data: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    flat = [
        {
            "id": r["id"],
            "submission": r["submission"],
            **{f"ground_truth.{k}": v for k, v in r.get("ground_truth", {}).items()},
        }
        for r in data
    ]
    pq.write_table(pa.Table.from_pylist(flat), path, row_group_size=7)


def make(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    data = rows()
    if name.startswith("d.jsonl"):
        write_jsonl(path, data)
    elif name == "d.json":
        path.write_text(json.dumps(data, indent=1))
    elif name.startswith(("d.csv", "d.tsv")):
        write_csv(path, data, "\t" if ".tsv" in name else ",")
    elif name == "d.parquet":
        write_parquet(path, data)
    return path


def ids_and_patterns(path: Path) -> list[tuple[str, str]]:
    return [
        (str(r.get("id", w.line)), pattern(r.get("ground_truth"))) for w, r in iter_records(path)
    ]


def check_split(source: Path, train: Path, test: Path, share: float) -> None:
    everything = ids_and_patterns(source)
    kept = ids_and_patterns(train) + ids_and_patterns(test)
    test_ids = {i for i, _ in ids_and_patterns(test)}
    assert sorted(kept) == sorted(everything)  # complete, and each item once: disjoint
    assert len(test_ids) == math.floor(share * len(everything) + 0.5)
    sizes = Counter(p for _, p in everything)
    in_test = Counter(p for _, p in ids_and_patterns(test))
    for key, n in sizes.items():  # stratified: each pattern within one item of its share
        assert abs(in_test[key] - share * n) < 1, key


@pytest.mark.parametrize(
    "name", ["d.jsonl", "d.jsonl.gz", "d.json", "d.csv", "d.tsv.gz", "d.parquet"]
)
def test_each_format_is_split_into_its_own_format(tmp_path: Path, name: str) -> None:
    source = make(tmp_path, name)
    done = cli("split", source, "--test-share", "0.3", "--seed", "7", "--format", "json")
    assert done.exit_code == 0, done.stderr
    result = json.loads(done.stdout)
    train, test = Path(result["train"]["path"]), Path(result["test"]["path"])
    stem, ext = name.split(".", 1)
    assert (train.name, test.name) == (f"{stem}.train.{ext}", f"{stem}.test.{ext}")
    check_split(source, train, test, 0.3)
    assert result["strata"] == 5 and (result["train"]["items"], result["test"]["items"]) == (28, 12)
    if name == "d.jsonl":  # lines are copied as they are
        lines = set(source.read_bytes().splitlines())
        assert set(train.read_bytes().splitlines()) | set(test.read_bytes().splitlines()) == lines


def test_same_seed_same_split_and_other_seeds_differ(tmp_path: Path) -> None:
    source = make(tmp_path, "d.jsonl")
    parts = []
    for seed in (1, 1, 2, 3):
        assert cli("split", source, "--seed", str(seed), "--force").exit_code == 0
        parts.append((tmp_path / "d.test.jsonl").read_bytes())
    assert parts[0] == parts[1]
    assert parts[2] != parts[0] or parts[3] != parts[0]


def test_library_dataset_keeps_its_rubric_and_inspect_logs_become_jsonl(tmp_path: Path) -> None:
    library = tmp_path / "lib.json"
    library.write_bytes(rubric_dataset_bytes())
    assert cli("split", library, "--test-share", "0.34").exit_code == 0
    train = json.loads((tmp_path / "lib.train.json").read_text())
    original = json.loads(library.read_text())
    assert train["rubric"] == original["rubric"] and len(train["items"]) == 2
    log = tmp_path / "log.json"
    log.write_text(json.dumps(inspect_log()))
    evals = tmp_path / "run.eval"
    evals.write_bytes(inspect_eval_bytes())
    for source in (log, evals):
        done = cli("split", source, "--test-share", "0.5", "--format", "json")
        assert done.exit_code == 0, done.stderr
        test = Path(json.loads(done.stdout)["test"]["path"])
        assert test.name == f"{source.stem}.test.jsonl"
        check_split(source, tmp_path / f"{source.stem}.train.jsonl", test, 0.5)


def test_an_existing_part_is_never_overwritten_without_force(tmp_path: Path) -> None:
    source = make(tmp_path, "d.jsonl")
    (tmp_path / "d.test.jsonl").write_text("mine\n")
    refused = cli("split", source)
    assert refused.exit_code == 2 and "d.test.jsonl: exists; pass --force" in refused.stderr
    assert (tmp_path / "d.test.jsonl").read_text() == "mine\n"
    assert not (tmp_path / "d.train.jsonl").exists()  # nothing half-written either
    assert cli("split", source, "--force").exit_code == 0
    assert (tmp_path / "d.test.jsonl").read_text() != "mine\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--test-share", "1"], "--test-share: must be between 0 and 1"),
        (["--test-share", "0.001"], "leaves the test part empty"),
    ],
)
def test_bad_shares_are_refused(tmp_path: Path, args: list[str], message: str) -> None:
    done = cli("split", make(tmp_path, "d.jsonl"), *args)
    assert done.exit_code == 2 and message in done.stderr


def test_a_duplicate_id_is_refused_naming_its_line(tmp_path: Path) -> None:
    source = tmp_path / "d.jsonl"
    write_jsonl(source, [*rows(3), rows(3)[1]])
    done = cli("split", source)
    assert done.exit_code == 2 and f"{source}:4: id: duplicate id 'q01'" in done.stderr


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from("abcdefg"), min_size=2, max_size=120),
    st.floats(0.05, 0.95),
    st.integers(0, 2**32),
)
def test_the_rule_is_exact_stratified_and_seeded(keys: list[str], share: float, seed: int) -> None:
    total = math.floor(share * len(keys) + 0.5)
    if not 0 < total < len(keys):
        return  # refused as an empty part (tested above)
    test = split_indices(keys, share, seed)
    assert len(test) == total and test <= set(range(len(keys)))
    for key, n in Counter(keys).items():
        assert abs(sum(keys[i] == key for i in test) - share * n) < 1
    assert split_indices(keys, share, seed) == test
