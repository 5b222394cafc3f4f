"""The labelling page (docs/guides/labels.md): one self-contained file, the rules of the HTML report
(docs/guides/html-report.md).

Items go in the order `labels.order` chose, until the item cap or the byte budget is reached,
so a capped page holds the items most worth labelling. Texts travel as gzip+base64 (they
cannot close their `<script>` element) and the page inserts them with `textContent` only.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from autorubric_cli import __version__
from autorubric_cli.core.item_rubric import record_rubric
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.manifest import ITEMS, write_atomic
from autorubric_cli.experiment.store import ReadIssues, latest_lines, records_by_id
from autorubric_cli.labels.page_data import LabelPlan, criterion_meta, plan_meta
from autorubric_cli.report.html.items import compress_rows
from autorubric_cli.report.html.templating import asset, environment
from autorubric_cli.report.html.texts import item_texts

LABEL_HTML = "label.html"
LABEL_ITEM_CAP = 10_000
"""At most this many items on one page (the first in the labelling order)."""
LABEL_BYTE_BUDGET = 6_000_000
"""Compressed bytes of items: base64 makes it ~8 MB, so the page stays under 10 MB."""


def label_rows(
    plan: LabelPlan, texts: dict[str, Any], own: dict[str, list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """One row per item: its texts, and `ic`, its own criteria to label after the shared ones."""
    rows = []
    for item in plan.ranked:
        fields = texts.get(item.id, {})
        row = {"id": item.id, "why": item.why, "r": item.raters, "sub": fields.get("sub")}
        row.update({k: v for k, v in fields.items() if k != "sub" and v is not None})
        if own.get(item.id):
            row["ic"] = own[item.id]
        rows.append(row)
    return rows


def own_criteria(plan: LabelPlan, records: Iterable[ItemRecord]) -> dict[str, list[dict[str, Any]]]:
    """id -> the item's own criteria as the page shows them (`criterion_meta`)."""
    rubric = plan.experiment.rubric
    shared = len(rubric.criteria)
    return {
        r.id: [criterion_meta(c) for c in record_rubric(rubric, r).criteria[shared:]]
        for r in records
    }


def render_label_html(
    plan: LabelPlan, *, cap: int = LABEL_ITEM_CAP, budget: int = LABEL_BYTE_BUDGET
) -> str:
    experiment = plan.experiment
    wanted = {item.id for item in plan.ranked[:cap]}
    path = experiment.directory / ITEMS
    records = records_by_id(path, latest_lines(path, ReadIssues()), wanted)
    texts, note = item_texts(records.values(), experiment.manifest, experiment.rubric)
    if note is not None:
        raise InputError(f"cannot write the labelling page: {note}", path=str(experiment.directory))
    rows = label_rows(plan, texts, own_criteria(plan, records.values()))
    payload, ids, hit = compress_rows(rows[:cap], budget)
    meta = plan_meta(plan) | {"shown": len(ids), "total": len(plan.ranked)}
    template = environment().get_template("label.html.j2")
    return template.render(
        meta=meta,
        payload=payload,
        capped=len(ids) < len(plan.ranked),
        budget_hit=hit,
        css=asset("label.css") + asset("conversation.css"),
        page_js=asset("dom.js") + asset("conversation.js") + asset("label.js"),
        plots=None,
        version=__version__,
    )


def write_label_html(plan: LabelPlan, path: Path | None = None) -> Path:
    target = path if path is not None else plan.experiment.directory / LABEL_HTML
    page = render_label_html(plan)
    try:
        write_atomic(target, page.encode("utf-8"))
    except OSError as exc:
        raise InputError(
            f"cannot write the labelling page: {exc.strerror}", path=str(target)
        ) from None
    return target
