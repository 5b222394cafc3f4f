"""The items embedded in the HTML report: compact rows, a capped sample (worst first), with
their texts (`texts`), gzip-compressed and base64-encoded.

The page decompresses the payload in the browser (`DecompressionStream`); base64 text cannot
break out of its `<script>` element, and the page inserts every string with `textContent`, so
text from datasets and judges is never parsed as HTML.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from autorubric_cli.core.evaluate import non_na_values, outcome_value
from autorubric_cli.core.item_rubric import record_rubric
from autorubric_cli.core.records import CriterionRecord, ItemRecord, Vote
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.core.scoring import criterion_value
from autorubric_cli.experiment.manifest import ITEMS, Manifest
from autorubric_cli.experiment.store import ReadIssues, iter_records_at, open_records
from autorubric_cli.report.html.texts import cut, item_texts
from autorubric_cli.report.outcome import outcome_label

ITEM_CAP = 5_000
"""At most this many items are embedded (the worst first); the rest are in items.jsonl."""
BYTE_BUDGET = 2_300_000
"""Compressed bytes of item data, so a page stays well under 5 MB with the plotting script."""


@dataclass
class EmbeddedItems:
    payload: str  # base64 of gzip of a JSON array of item rows
    shown: int
    total: int
    texts_note: str | None  # why submissions are missing, when they are
    byte_budget_hit: bool = False
    count_cap_hit: bool = False
    ids: list[str] = field(default_factory=list)

    @property
    def sampled(self) -> bool:
        return self.shown < self.total


def worst_first_key(status: str, score: float | None, index: int) -> tuple[int, float, int]:
    """Errored items first, then items with no score, then by ascending score."""
    return (status != "error", -1.0 if score is None else score, index)


def select_lines(path: Path, issues: ReadIssues, cap: int) -> tuple[list[int], int]:
    """Line numbers of the newest records to embed (at most `cap`, the worst), and the total.

    One parse per line (the newest line of an id wins, as everywhere); unreadable lines are
    left to `iter_records_at`, which reports them.
    """
    if not path.exists():
        return [], 0
    newest: dict[str, tuple[tuple[int, float, int], int]] = {}
    with open_records(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                obj = orjson.loads(raw)
                score = obj.get("score")
                score = score if isinstance(score, int | float) else None
                key = worst_first_key(str(obj["status"]), score, int(obj.get("index", 0)))
                newest[str(obj["id"])] = (key, number)
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
                continue
    chosen = sorted(newest.values())[:cap]
    return sorted(n for _, n in chosen), len(newest)


def has_human_ratings(path: Path) -> bool:
    """Whether any record carries human ratings: records are written compact by orjson, so a
    non-empty mapping starts `"human_ratings":{"` (a byte scan: no record is parsed)."""
    if not path.is_file():
        return False
    with open_records(path) as handle:
        return any(b'"human_ratings":{"' in raw for raw in handle)


def vote_row(vote: Vote, judges: dict[str, int]) -> list[Any]:
    """[judge index, sample, verdict or option index, shown order, reason, error, cached]."""
    outcome: Any = vote.option_index if vote.option_index is not None else vote.verdict
    return [
        judges.get(vote.judge, -1),
        vote.sample,
        None if outcome is None else (outcome if isinstance(outcome, int) else str(outcome)),
        vote.shuffle_order,
        cut(vote.reason),
        cut(vote.error),
        vote.cached,
    ]


def criterion_view(criterion: Criterion) -> dict[str, Any]:
    """What the page shows of a criterion: its name, requirement, weight, tags, kind, scope and
    options (labels; `na` the NA ones)."""
    options = criterion.options
    return {
        "name": criterion.name,
        "requirement": criterion.requirement,
        "kind": criterion.kind,
        "weight": criterion.weight,
        "tags": criterion.tags,
        "scope": criterion.scope,
        "options": None if options is None else [o.label for o in options],
        "na": [o.label for o in options or [] if o.na],
    }


def scored_values(record: ItemRecord, rubric: Rubric) -> list[float | None]:
    """v_i of each criterion as the score used it (docs/guides/rubrics.md, cannot-assess strategy
    applied); None when the criterion was left out of the score. `rubric`: the item's own
    (`core.item_rubric.record_rubric`)."""
    rules = rubric.grader.cannot_assess
    return [
        criterion_value(c.weight, outcome_value(r), rules, non_na_values(c))
        for c, r in zip(rubric.criteria, record.criteria, strict=False)
    ]


def criterion_row(
    record: CriterionRecord, judges: dict[str, int], value: float | None
) -> list[Any]:
    """[outcome label, agreement, reason, votes, v_i (None when not scored)]."""
    return [
        outcome_label(record),
        record.agreement,
        cut(record.reason),
        [vote_row(v, judges) for v in record.votes],
        value,
    ]


def item_row(
    record: ItemRecord, judges: dict[str, int], texts: dict[str, Any], rubric: Rubric
) -> dict[str, Any]:
    """The item's row; `ic`: its own criteria (after the shared ones in `c`), when it has any."""
    own = record_rubric(rubric, record)
    values = scored_values(record, own) if record.status == "ok" else [None] * len(record.criteria)
    row: dict[str, Any] = {
        "id": record.id,
        "n": record.index,
        "st": record.status,
        "sc": record.score,
        "raw": record.raw_score,
        "lp": record.length_penalty,
        "err": cut(record.error),
        "c": [criterion_row(c, judges, v) for c, v in zip(record.criteria, values, strict=False)],
        "gt": record.ground_truth,
        "cost": record.cost,
    }
    if len(own.criteria) > len(rubric.criteria):
        row["ic"] = [criterion_view(c) for c in own.criteria[len(rubric.criteria) :]]
    if record.tags:
        row["tags"] = record.tags
    row.update(texts.get(record.id, {}))
    return row


def compress_rows(rows: Iterable[dict[str, Any]], budget: int) -> tuple[str, list[str], bool]:
    """base64(gzip(JSON array)) of the rows, in order, until the compressed size reaches `budget`.

    Each row is flushed (Z_SYNC_FLUSH) so the size so far is exact; a row is only left out
    when the rows before it already used the budget.
    """
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    chunks = [compressor.compress(b"[")]
    size = len(chunks[0])
    ids: list[str] = []
    hit = False
    for row in rows:
        if size >= budget:
            hit = True
            break
        prefix = b"," if ids else b""
        chunks.append(compressor.compress(prefix + orjson.dumps(row)))
        chunks.append(compressor.flush(zlib.Z_SYNC_FLUSH))
        size += len(chunks[-1]) + len(chunks[-2])
        ids.append(row["id"])
    chunks.append(compressor.compress(b"]"))
    chunks.append(compressor.flush())
    return base64.b64encode(b"".join(chunks)).decode("ascii"), ids, hit


def embed_items(
    directory: Path,
    manifest: Manifest,
    rubric: Rubric,
    *,
    cap: int = ITEM_CAP,
    budget: int = BYTE_BUDGET,
) -> EmbeddedItems:
    """The worst `cap` items (errored, unscored, then lowest score) that fit in `budget`."""
    path = directory / ITEMS
    issues = ReadIssues()
    numbers, total = select_lines(path, issues, cap)
    records = list(iter_records_at(path, set(numbers), issues, rubric.criteria))
    records.sort(key=lambda r: worst_first_key(r.status, r.score, r.index))
    texts, note = item_texts(records, manifest, rubric)
    judges = {j.judge_id: i for i, j in enumerate(rubric.grader.judges)}
    rows = (item_row(r, judges, texts, rubric) for r in records)
    payload, ids, hit = compress_rows(rows, budget)
    return EmbeddedItems(
        payload=payload,
        shown=len(ids),
        total=total - len(issues.bad_lines),
        texts_note=note,
        byte_budget_hit=hit,
        count_cap_hit=total > cap,
        ids=ids,
    )


def decode_payload(payload: str) -> list[dict[str, Any]]:
    """The rows of a payload (for tests and tools)."""
    return list(orjson.loads(zlib.decompress(base64.b64decode(payload), 31)))
