"""One side of a comparison: the newest record of every id, projected onto flat arrays.

`compare` needs per item only the id, dataset index, status, score, the criteria's outcome
codes and the judges' scores. Validating every record with pydantic costs ~60 µs a line (12 s
for two 100,000-item experiments), so lines are parsed with orjson alone and projected onto
typed arrays, one row per id (the newest line wins, as everywhere,
docs/reference/experiment-directory.md). A line that does not parse or does not fit the rubric is
skipped and reported, as `report` does.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import sys
from array import array
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from autorubric_cli.core.clusters import KEYS_KEPT, cluster_value, nearby_keys
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.experiment.manifest import ITEMS
from autorubric_cli.experiment.opened import OpenedExperiment, open_experiment
from autorubric_cli.experiment.store import ReadIssues, open_records
from autorubric_cli.metrics.codes import ABSTAIN

NAN = math.nan


@dataclass
class Side:
    """Rows of one experiment's newest records; `usable` = status ok with a defined score."""

    experiment: OpenedExperiment
    criteria: list[Criterion]
    judge_ids: list[str]
    rows: dict[str, int] = field(default_factory=dict)
    index: array = field(default_factory=lambda: array("q"))
    usable: array = field(default_factory=lambda: array("b"))
    errored: array = field(default_factory=lambda: array("b"))
    score: array = field(default_factory=lambda: array("d"))
    codes: dict[str, array] = field(default_factory=dict)
    judge_scores: dict[str, array] = field(default_factory=dict)
    issues: ReadIssues = field(default_factory=ReadIssues)
    cluster: tuple[str, ...] | None = None  # the cluster key's path into metadata
    clusters: list[str | None] = field(default_factory=list)  # per row, with a cluster key
    own: ItemCriteria = field(default_factory=lambda: ItemCriteria())  # items' own criteria
    cluster_keys: set[str] = field(default_factory=set)  # keys beside a missing cluster key

    def __post_init__(self) -> None:
        self.codes = {c.name: array("b") for c in self.criteria}
        self.judge_scores = {j: array("d") for j in self.judge_ids}

    @property
    def name(self) -> str:
        return self.experiment.manifest.name

    def add(self, obj: dict[str, Any]) -> None:
        """Store one record (raises KeyError/TypeError/ValueError when it does not fit)."""
        item_id = str(obj["id"])
        index = int(obj["index"])
        status = obj["status"]
        if status not in ("ok", "error"):
            raise ValueError(status)
        raw_score = obj.get("score")
        score = NAN if raw_score is None else float(raw_score)
        entries = obj["criteria"]
        codes = criterion_codes(entries[: len(self.criteria)], self.criteria)
        own = entries[len(self.criteria) :]
        judges = obj.get("judge_scores") or {}
        judge_values = [_number(judges.get(j)) for j in self.judge_scores]
        span = self.own.add(own)
        row = self.rows.get(item_id)
        if row is None:
            row = self.rows[item_id] = len(self.index)
            self.own.spans.append((0, 0))
            for column in (self.index, self.usable, self.errored):
                column.append(0)
            self.score.append(NAN)
            for name in self.codes:
                self.codes[name].append(ABSTAIN)
            for judge in self.judge_scores:
                self.judge_scores[judge].append(NAN)
            self.clusters.append(None)
        self.index[row] = index
        self.own.spans[row] = span
        self.errored[row] = status == "error"
        self.usable[row] = status == "ok" and raw_score is not None
        self.score[row] = score
        for name, code in codes.items():
            self.codes[name][row] = code
        for column, value in zip(self.judge_scores.values(), judge_values, strict=True):
            column[row] = value
        if self.cluster is not None:
            metadata = obj.get("metadata")
            found = cluster_value(metadata, self.cluster) if isinstance(metadata, dict) else None
            self.clusters[row] = found
            if found is None and isinstance(metadata, dict) and len(self.cluster_keys) < KEYS_KEPT:
                self.cluster_keys.update(nearby_keys(metadata, self.cluster))


NOT_BINARY = -3
"""The code of a multi-choice item criterion (only binary ones are pooled)."""
DEFINITION = (
    "requirement",
    "weight",
    "options",
    "scale_type",
    "aggregation",
    "scope",
    "elicitation",
)
"""What makes two item criteria of one name the same criterion: what the judge is asked and how
it is scored (tags only group results, so they may differ)."""


@dataclass
class ItemCriteria:
    """Every row's own criteria (docs/guides/compare.md), flat: a row's entries are
    `spans[row]` = (start, stop) into the name, definition and code columns; a newer line of an
    id appends its entries and moves the row's span to them."""

    spans: list[tuple[int, int]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    definitions: list[int] = field(default_factory=list)  # a hash of the definition's keys
    codes: array = field(default_factory=lambda: array("b"))

    def add(self, entries: list[dict[str, Any]]) -> tuple[int, int]:
        """A record's item-criterion entries (raises ValueError for an entry without its
        definition: the record does not fit the rubric)."""
        start = len(self.names)
        for entry in entries:
            if entry.get("requirement") is None:
                raise ValueError("criteria do not match the rubric")
            self.names.append(sys.intern(str(entry["name"])))
            definition = orjson.dumps([entry.get(k) for k in DEFINITION])
            self.definitions.append(hash(definition))  # the same in the forked readers
            if entry.get("options") is None:
                code = {"MET": 1, "UNMET": 0}.get(str(entry.get("verdict")), ABSTAIN)
            else:
                code = NOT_BINARY
            self.codes.append(code)
        return start, len(self.names)

    def of(self, row: int) -> dict[str, tuple[int, int]]:
        """A row's own criteria: name -> (definition, code)."""
        start, stop = self.spans[row]
        return {self.names[k]: (self.definitions[k], self.codes[k]) for k in range(start, stop)}


def _number(value: Any) -> float:
    return NAN if value is None else float(value)


def criterion_codes(criteria: list[dict[str, Any]], rubric: list[Criterion]) -> dict[str, int]:
    """Outcome code per criterion (metrics codes: 1 MET, 0 UNMET, option index, ABSTAIN)."""
    if len(criteria) != len(rubric):
        raise ValueError("criteria do not match the rubric")
    codes = {}
    for record, criterion in zip(criteria, rubric, strict=True):
        if record["name"] != criterion.name:
            raise ValueError(record["name"])
        option = record.get("option")
        if criterion.options is not None:
            if option is None:
                codes[criterion.name] = ABSTAIN
                continue
            index = int(option["index"])
            if not 0 <= index < len(criterion.options):
                raise ValueError(index)
            codes[criterion.name] = ABSTAIN if criterion.options[index].na else index
        else:
            codes[criterion.name] = {"MET": 1, "UNMET": 0}.get(str(record.get("verdict")), ABSTAIN)
    return codes


PARALLEL_MIN_BYTES = 50_000_000


def read_sides(base: Path, new: Path, cluster: tuple[str, ...] | None = None) -> tuple[Side, Side]:
    """Both sides; two large files are read at once in two forked processes."""
    sizes = [(d / ITEMS).stat().st_size if (d / ITEMS).is_file() else 0 for d in (base, new)]
    fork = "fork" in multiprocessing.get_all_start_methods()
    if min(sizes) < PARALLEL_MIN_BYTES or not fork or (os.cpu_count() or 1) < 2:
        return read_side(base, cluster), read_side(new, cluster)
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        first, second = pool.map(read_side, (base, new), (cluster, cluster))
    return first, second


def read_side(directory: Path, cluster: tuple[str, ...] | None = None) -> Side:
    """The experiment in `directory` (manifest, rubric copy, items.jsonl) as one Side."""
    experiment = open_experiment(directory)
    side = Side(
        experiment,
        list(experiment.rubric.criteria),
        [j.judge_id for j in experiment.rubric.grader.judges],
        cluster=cluster,
    )
    path = directory / ITEMS
    if not path.exists():
        return side
    with open_records(path) as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                obj = orjson.loads(raw)
                side.add(obj)
            except (
                orjson.JSONDecodeError,
                KeyError,
                TypeError,
                ValueError,
                AttributeError,
                OverflowError,
            ):
                side.issues.bad_lines.append(number)
    return side
