"""The systems compared (docs/guides/pairwise.md): each a dataset file or a finished experiment
directory, read into its items by id.

An experiment's records keep what was graded (`submission`, `query`, `reference_submission`,
docs/reference/experiment-directory.md); a record without `submission` (written before records
kept it) is read from the experiment's dataset instead, when that file is still there with the
SHA-256 the manifest recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError

from autorubric_cli.core.items import Item
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.lock import writer_active
from autorubric_cli.experiment.manifest import ITEMS, load_manifest, sha256_file
from autorubric_cli.experiment.opened import OpenedExperiment, open_experiment
from autorubric_cli.experiment.store import ReadIssues, latest_lines, open_records
from autorubric_cli.loading.dataset import iter_items

FORMAT_SUFFIXES = (".gz", ".jsonl", ".json", ".csv", ".tsv", ".parquet")
RESERVED_NAMES = ("tie", "leaderboard")
Kind = Literal["dataset", "experiment"]


class SystemSource(BaseModel):
    """Where a system's answers were read (the manifest's `pairwise.systems`): `sha256` of the
    dataset file, or of the experiment's items.jsonl, checked again by `resume`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    path: str
    kind: Kind
    sha256: str


@dataclass
class System:
    source: SystemSource
    items: dict[str, Item]  # by id, in the order read

    @property
    def name(self) -> str:
        return self.source.name


def default_name(path: Path) -> str:
    """A dataset's file name without its format suffixes; an experiment's recorded name."""
    if path.is_dir():
        return load_manifest(path).name
    name = path.name
    for suffix in FORMAT_SUFFIXES:
        name = name.removesuffix(suffix)
    return name or path.name


def name_problem(name: str) -> str | None:
    """Why a system cannot have this name (it must split back from a comparison's id, and not
    read as a tie or the leaderboard in the report), or None."""
    if not name.strip():
        return "a system's name must not be blank"
    if "|" in name or any(ord(c) < 32 for c in name):
        return f"system name {name!r} holds `|` or a control character"
    if name in RESERVED_NAMES:
        return f"{name!r} cannot name a system (it names a tie or the leaderboard)"
    return None


def read_system(path: Path, name: str, rubric: Rubric, fields: dict[str, str]) -> System:
    """The system at `path`: a dataset file (read with the rubric and field mapping, as `run`
    reads it) or an experiment directory."""
    if path.is_dir():
        return read_experiment(path, name)
    if not path.is_file():
        raise InputError("no such dataset file or experiment directory", path=str(path))
    items = {item.id: item for item in iter_items(path, rubric, fields)}
    source = SystemSource(
        name=name, path=str(path.resolve()), kind="dataset", sha256=sha256_file(path)
    )
    return System(source, items)


def read_experiment(directory: Path, name: str) -> System:
    """A finished experiment's answers, from its records (or its unchanged dataset)."""
    experiment = open_experiment(directory)  # refuses a pairwise experiment
    if writer_active(directory):
        raise InputError(
            "a run is still writing this experiment; compare it once it has finished",
            path=str(directory),
        )
    records = directory / ITEMS
    rows = newest_rows(records)
    if not rows:
        raise InputError("the experiment has no recorded item", path=str(records))
    missing = [row for row in rows if "submission" not in row]
    items = (
        {row["id"]: record_item(row, records, k) for k, row in enumerate(rows)}
        if not missing
        else dataset_items(directory, experiment, {str(row["id"]) for row in rows})
    )
    source = SystemSource(
        name=name, path=str(directory.resolve()), kind="experiment", sha256=sha256_file(records)
    )
    return System(source, items)


def newest_rows(records: Path) -> list[dict[str, Any]]:
    """The newest complete line of every id, as JSON objects, in dataset order (`index`)."""
    latest = latest_lines(records, ReadIssues())
    wanted = {number: item_id for item_id, (number, _) in latest.items()}
    rows: dict[str, dict[str, Any]] = {item_id: {} for item_id in latest}
    with open_records(records) as handle:
        for number, raw in enumerate(handle, start=1):
            if number in wanted:
                rows[wanted[number]] = orjson.loads(raw)
    return sorted(rows.values(), key=lambda row: _index(row.get("index")))


def _index(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def record_item(row: dict[str, Any], records: Path, index: int) -> Item:
    try:
        return Item(
            id=str(row["id"]),
            index=index,
            submission=row["submission"],
            query=row.get("query"),
            reference_submission=row.get("reference_submission"),
            ground_truth=row.get("ground_truth") or {},
            metadata=row.get("metadata") or {},
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(p) for p in error["loc"])
        raise InputError(
            f"record of item {row['id']!r} does not read as an item: {error['msg']}",
            path=str(records),
            key=key,
        ) from None


def dataset_items(directory: Path, experiment: OpenedExperiment, ids: set[str]) -> dict[str, Item]:
    """The recorded items, read from the experiment's dataset (records without `submission`)."""
    manifest = experiment.manifest
    dataset = Path(manifest.dataset.path)
    if not dataset.is_file() or sha256_file(dataset) != manifest.dataset.sha256:
        state = "is gone" if not dataset.is_file() else "changed since the run (SHA-256 differs)"
        raise InputError(
            f"its records keep no submissions (written by an older autorubric) and its dataset "
            f"{dataset} {state}; give the dataset file that holds the answers instead",
            path=str(directory),
        )
    found = iter_items(dataset, experiment.rubric, manifest.dataset_fields)
    return {item.id: item for item in found if item.id in ids}
