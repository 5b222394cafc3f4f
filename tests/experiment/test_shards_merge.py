"""Shards and merge (docs/guides/shards.md): `run --shard K/N` on every shard, then `merge`, gives
the same experiment as one run; a missing shard is named; shards of different runs refuse to
merge."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from autorubric_cli.core.items import Item, Submission
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.merge import config_difference
from autorubric_cli.experiment.shard import Shard, in_shard, parse_shard, shard_of
from tests.support.cli import CliResult, cli

ROOT = Path(__file__).resolve().parents[2]
RUBRIC = ROOT / "rubrics" / "demo.yaml"
DATA = ROOT / "datasets" / "demo.jsonl"
N = 3


def ok(*args: object) -> CliResult:
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    return result


def report(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / "report.json").read_text())
    data.pop("experiment")
    return data


def records(directory: Path) -> list[dict[str, Any]]:
    lines = [orjson.loads(raw) for raw in (directory / "items.jsonl").read_bytes().splitlines()]
    for line in lines:
        line.pop("duration_s")
    return lines


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One single run and its three shards, all of the demo rubric and dataset."""
    base = tmp_path_factory.mktemp("shards")
    ok("run", RUBRIC, DATA, "--out", base / "single", "--format", "json", "--no-cache")
    for k in range(1, N + 1):
        ok("run", RUBRIC, DATA, "--out", base / f"s{k}", "--shard", f"{k}/{N}", "--no-cache")
    return base


def dataset_ids() -> list[str]:
    return [json.loads(line)["id"] for line in DATA.read_text().splitlines() if line.strip()]


def test_shards_partition_the_dataset_and_record_the_shard(runs: Path) -> None:
    per_shard = [{r["id"] for r in records(runs / f"s{k}")} for k in range(1, N + 1)]
    assert sum(len(s) for s in per_shard) == len(dataset_ids())
    assert set().union(*per_shard) == set(dataset_ids())
    for k, ids in enumerate(per_shard, start=1):
        manifest = json.loads((runs / f"s{k}" / "manifest.json").read_text())
        assert manifest["shard"] == {"index": k, "count": N, "dataset_items": len(dataset_ids())}
        assert manifest["items_total"] == len(ids) > 0
        assert all(shard_of(i, N) == k for i in ids)


def test_merged_shards_equal_a_single_run(runs: Path, tmp_path: Path) -> None:
    shards = [runs / f"s{k}" for k in (2, 3, 1)]  # any order on the command line
    result = ok("merge", tmp_path / "merged", *shards, "--format", "json")
    assert json.loads(result.stdout)["items"]["completed"] == len(dataset_ids())
    merged = tmp_path / "merged"
    assert report(merged) == report(runs / "single")  # ids, scores and every figure
    assert records(merged) == sorted(records(runs / "single"), key=lambda r: r["index"])
    assert [r["index"] for r in records(merged)] == list(range(len(dataset_ids())))
    given = {json.loads(line)["id"]: json.loads(line) for line in DATA.read_text().splitlines()}
    for record in records(merged):  # what was graded travels with the records
        assert record["submission"] == given[record["id"]]["submission"]
        assert record["query"] == given[record["id"]]["query"]
    manifest = json.loads((merged / "manifest.json").read_text())
    assert manifest["status"] == "completed" and manifest["shard"] is None
    assert [m["shard"] for m in manifest["merged_from"]] == ["1/3", "2/3", "3/3"]
    assert (merged / "rubric.yaml").read_bytes() == RUBRIC.read_bytes()
    # read like any other experiment: report and validate give what the single run gives
    again = ok("report", merged, "--format", "json")
    assert {**json.loads(again.stdout), "experiment": None} == {
        **report(runs / "single"),
        "experiment": None,
    }
    validated = [
        {**json.loads(ok("validate", d, "--format", "json").stdout), "experiment": None}
        for d in (merged, runs / "single")
    ]
    assert validated[0] == validated[1]


def test_a_missing_shard_is_named_and_allow_partial_merges_the_rest(
    runs: Path, tmp_path: Path
) -> None:
    out = tmp_path / "partial"
    refused = cli("merge", out, runs / "s1", runs / "s3")
    assert refused.exit_code == 2
    assert "missing shard(s) 2/3" in refused.stderr and "--allow-partial" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert not out.exists()

    partial = cli("merge", out, runs / "s1", runs / "s3", "--allow-partial", "-f", "json")
    assert partial.exit_code == 0, partial.stderr
    assert "without shard(s) 2/3" in partial.stderr
    missing = len(records(runs / "s2"))
    items = json.loads(partial.stdout)["items"]
    assert items == {
        "total": len(dataset_ids()),
        "completed": len(dataset_ids()) - missing,
        "errored": 0,
        "pending": missing,
    }
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    # resume grades exactly the missing shard's items; then it equals the single run
    ok("resume", out, "--no-cache", "--format", "json")
    counts = Counter(r["id"] for r in records(out))
    assert set(counts) == set(dataset_ids()) and max(counts.values()) == 1
    by_id = {r["id"]: r for r in records(runs / "single")}
    assert {r["id"]: r for r in records(out)} == by_id
    resumed, single = report(out), report(runs / "single")
    # every figure, although the resumed items come after the merged ones in the file
    assert resumed["status"] == "completed" and resumed == single


def test_shards_of_different_runs_refuse_to_merge(runs: Path, tmp_path: Path) -> None:
    other_rubric = tmp_path / "demo-v2.yaml"
    other_rubric.write_text(RUBRIC.read_text().replace("weight: 10\n", "weight: 11\n", 1))
    ok("run", other_rubric, DATA, "--out", tmp_path / "r2", "--shard", "2/3", "--no-cache")
    ok("run", RUBRIC, DATA, "--out", tmp_path / "seed", "--shard", "2/3", "--seed", "5")
    ok("run", RUBRIC, DATA, "--out", tmp_path / "n4", "--shard", "2/4", "--no-cache")
    ok("run", RUBRIC, DATA, "--out", tmp_path / "full", "--no-cache")
    cases = {
        "r2": "rubric (SHA-256) differs",
        "seed": "seed differs",
        "n4": "shard count N differs",
    }
    for name, message in cases.items():
        out = tmp_path / f"out-{name}"
        result = cli("merge", out, runs / "s1", tmp_path / name, runs / "s3")
        assert result.exit_code == 2, result.stdout
        assert message in result.stderr and str(tmp_path / name) in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
        assert not out.exists()
    twice = cli("merge", tmp_path / "o1", runs / "s1", runs / "s1", runs / "s2", runs / "s3")
    assert twice.exit_code == 2 and "shard 1/3 is given twice" in twice.stderr
    not_shard = cli("merge", tmp_path / "o2", runs / "s1", tmp_path / "full")
    assert not_shard.exit_code == 2 and "not a shard" in not_shard.stderr
    taken = cli("merge", runs / "single", runs / "s1", runs / "s2", runs / "s3")
    assert taken.exit_code == 2 and "not empty" in taken.stderr


def test_speed_settings_may_differ_between_shards_but_nothing_else() -> None:
    base = {"seed": 1, "concurrency": 8, "cache": True, "timeout": 60.0,
            "judges": [{"model": "m", "max_concurrency": 4, "temperature": 0.0}]}  # fmt: skip
    faster = {**base, "concurrency": 64, "cache": False,
              "judges": [{"model": "m", "max_concurrency": 40, "temperature": 0.0}]}  # fmt: skip
    assert config_difference(base, faster) is None
    hotter = {**base, "judges": [{"model": "m", "max_concurrency": 4, "temperature": 0.7}]}
    assert config_difference(base, hotter) == "grader.judges.0.temperature"
    assert config_difference(base, {**base, "timeout": 5.0}) == "grader.timeout"
    assert config_difference(base, {**base, "judges": []}) == "grader.judges"


def test_shard_flag_is_validated(tmp_path: Path) -> None:
    assert parse_shard("2/8") == Shard(index=2, count=8)
    assert parse_shard(" 1 / 1 ") == Shard(index=1, count=1)
    for bad in ("0/3", "4/3", "3", "a/b", "1/0", "-1/3", "1/3/5", ""):
        with pytest.raises(InputError, match="--shard"):
            parse_shard(bad)
    result = cli("run", RUBRIC, DATA, "--out", tmp_path / "x", "--shard", "4/3")
    assert result.exit_code == 2 and "--shard" in result.stderr
    assert not (tmp_path / "x").exists()


def test_shard_of_is_a_stable_hash_of_the_id_alone() -> None:
    ids = [f"item-{i}" for i in range(3000)] + ["q001", "é ü 中文", "", "1"]
    for i in ids:  # pinned to SHA-256, computed another way: the same on every machine
        expected = int(hashlib.sha256(i.encode()).hexdigest()[:16], 16) % 7 + 1
        assert shard_of(i, 7) == expected
    counts = Counter(shard_of(i, 7) for i in ids)
    assert set(counts) == set(range(1, 8))
    assert max(counts.values()) < 1.25 * len(ids) / 7  # balanced
    items = [Item(id=i, index=n, line=n + 1, submission=Submission(output="x")) for n, i in
             enumerate(ids)]  # fmt: skip
    shuffled = random.Random(0).sample(items, len(items))
    for k in range(1, 8):
        shard = Shard(index=k, count=7)
        assert {i.id for i in in_shard(items, shard)} == {i.id for i in in_shard(shuffled, shard)}
