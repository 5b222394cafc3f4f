"""Fold items.jsonl in contiguous line ranges on every core, then merge the folds in file order.

The parent only scans the file for each id's newest line (`scan.index_lines`); each worker
reads its own byte range and parses every line in it once. A 100,000-item experiment is
folded in two processes here; small experiments fold in-process.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import orjson
from pydantic import ValidationError

from autorubric_cli.core.evaluate import ScoringRules
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.core.what_if import WhatIfFlags
from autorubric_cli.experiment.record_fit import RecordFit
from autorubric_cli.experiment.store import ReadIssues, open_records
from autorubric_cli.labels.overlay import LabelOverlay
from autorubric_cli.report.fold import ReportFold, merge_folds
from autorubric_cli.report.scan import CHECK, FOLD, SKIP, LineIndex, index_lines, prefix_id

PARALLEL_MIN_RECORDS = 20_000


@dataclass(frozen=True)
class ExtrasSettings:
    """The cluster key's path into metadata, whether options were shuffled, the run's rubric
    (item criteria are read from records with it), and whether a call asked for a whole item
    (retries are counted per call)."""

    cluster: tuple[str, ...] | None = None
    shuffled: bool = True
    rubric: Rubric | None = None
    per_item: bool = False


def new_fold(
    rules: ScoringRules,
    judge_ids: list[str],
    what_if: WhatIfFlags | None,
    overlay: LabelOverlay | None,
    extras: ExtrasSettings,
) -> ReportFold:
    return ReportFold(
        rules,
        judge_ids,
        what_if,
        overlay,
        cluster=extras.cluster,
        shuffled=extras.shuffled,
        rubric=extras.rubric,
        per_item=extras.per_item,
    )


@dataclass(frozen=True)
class FoldJob:
    """Lines `first` .. `first + len(codes) - 1`, bytes `start` .. `end` of the file."""

    path: Path
    first: int
    start: int
    end: int
    codes: bytes
    rules: ScoringRules
    judge_ids: list[str]
    what_if: WhatIfFlags | None
    overlay: LabelOverlay | None
    extras: ExtrasSettings


@dataclass
class FoldPart:
    fold: ReportFold
    unreadable: list[int] = field(default_factory=list)  # torn lines (not complete JSON records)
    torn_newest: dict[int, str] = field(default_factory=dict)  # FOLD lines among them: their id
    misfits: list[int] = field(default_factory=list)  # complete, but invalid or not the rubric's
    mistaken: bool = False  # a line's id is not the one read from its first bytes


def fold_lines(job: FoldJob) -> FoldPart:
    """Parse, check and fold the job's lines, each once."""
    part = FoldPart(new_fold(job.rules, job.judge_ids, job.what_if, job.overlay, job.extras))
    fit = RecordFit.of(job.rules.criteria)
    with open_records(job.path) as handle:
        handle.seek(job.start)
        left = job.end - job.start
        for number, code in enumerate(job.codes, start=job.first):
            raw = handle.readline(left)
            left -= len(raw)
            if code == SKIP:
                continue
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError:
                obj = None
            if code & CHECK:
                if not isinstance(obj, dict) or "id" not in obj or "status" not in obj:
                    part.unreadable.append(number)
                    if code & FOLD:
                        part.torn_newest[number] = prefix_id(raw) or ""
                    continue
                if str(obj["id"]) != prefix_id(raw):
                    part.mistaken = True
                    return part
            if code & FOLD:
                try:
                    record = ItemRecord.model_validate(obj)
                except ValidationError:
                    part.misfits.append(number)
                    continue
                if fit.misfit(record):
                    part.misfits.append(number)
                else:
                    part.fold.add(record)
    return part


def split_contiguous(numbers: list[int], parts: int) -> list[set[int]]:
    if not numbers:
        return []
    size = -(-len(numbers) // parts)
    return [set(numbers[i : i + size]) for i in range(0, len(numbers), size)]


def worker_count(records: int) -> int:
    if records < PARALLEL_MIN_RECORDS or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(os.cpu_count() or 1, 4))


def line_ranges(index: LineIndex) -> list[tuple[int, int]]:
    """(first, last) line of each job: as many newest lines in each, every line in one."""
    if not index.codes:
        return []
    kept = index.kept()
    chunks = split_contiguous(kept, worker_count(len(kept)))
    starts = [1, *(min(chunk) for chunk in chunks[1:])]
    ends = [start - 1 for start in starts[1:]] + [len(index.codes)]
    return list(zip(starts, ends, strict=True))


def fold_parts(
    path: Path,
    index: LineIndex,
    rules: ScoringRules,
    judge_ids: list[str],
    what_if: WhatIfFlags | None,
    overlay: LabelOverlay | None,
    extras: ExtrasSettings,
) -> list[FoldPart]:
    jobs = [
        FoldJob(
            path,
            first,
            index.offsets[first - 1],
            index.offsets[last],
            bytes(index.codes[first - 1 : last]),
            rules,
            judge_ids,
            what_if,
            overlay,
            extras,
        )
        for first, last in line_ranges(index)
    ]
    if len(jobs) <= 1:
        return [fold_lines(job) for job in jobs]
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=len(jobs) - 1, mp_context=context) as pool:
        later = [pool.submit(fold_lines, job) for job in jobs[1:]]  # forked here, before
        first = fold_lines(jobs[0])  # this process folds the first range meanwhile
        return [first, *(future.result() for future in later)]


def sound(index: LineIndex, parts: list[FoldPart]) -> bool:
    """Whether the fold is the one an exact scan gives: every line the scan read an id from
    is a record with that id, or a torn line that hides no older line of its id."""
    return not any(
        part.mistaken or any(key in index.repeated for key in part.torn_newest.values())
        for part in parts
    )


def fold_experiment(
    path: Path,
    rules: ScoringRules,
    judge_ids: list[str],
    what_if: WhatIfFlags | None,
    issues: ReadIssues,
    overlay: LabelOverlay | None = None,
    extras: ExtrasSettings = ExtrasSettings(),
) -> ReportFold:
    """The fold over the newest record of every id, identical whatever the number of workers."""
    index = index_lines(path)
    parts = fold_parts(path, index, rules, judge_ids, what_if, overlay, extras)
    if not sound(index, parts):
        index = index_lines(path, fast=False)
        parts = fold_parts(path, index, rules, judge_ids, what_if, overlay, extras)
    unreadable = index.unreadable + [n for part in parts for n in part.unreadable]
    issues.bad_lines.extend(sorted(unreadable))
    issues.bad_lines.extend(n for part in parts for n in part.misfits)
    if not parts:
        return new_fold(rules, judge_ids, what_if, overlay, extras)
    fold = parts[0].fold
    for part in parts[1:]:
        merge_folds(fold, part.fold)
    return fold
