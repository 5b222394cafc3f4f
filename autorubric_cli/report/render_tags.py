"""The item-criteria, tags and pooled-agreement sections as titled rows of text: defined once
here, rendered by the table (Rich), Markdown and HTML reports alike.

Tags are grouped by the text before their first `:` (`axis`, `theme`): one table per group, the
criterion tags' groups first, then the item tags'.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table

from autorubric_cli.report.formats import NOT_ASSESSED, interval, not_assessed_note, number
from autorubric_cli.report.models import (
    BinaryMetrics,
    CriterionAgreement,
    PooledAgreement,
    PooledGroundTruth,
    Report,
)
from autorubric_cli.report.models_tags import TagEntry, TagsSection
from autorubric_cli.report.render_agreement import HEADERS, coefficients


@dataclass(frozen=True)
class RowsTable:
    title: str
    header: list[str]
    rows: list[list[str]]
    caption: str = ""
    key: str = ""  # an id for the HTML page


ITEM_CRITERIA_HEADER = ["(item, criterion) pairs", "items", "met rate", NOT_ASSESSED]
CRITERION_TAG_CAPTION = (
    "per item: Σ weight × value / Σ positive weight over its criteria with the tag (an item "
    "with no positive-weight criterion with the tag is left out); mean over items, 95% "
    "bootstrap CI; pairs: the (item, criterion) pairs with the tag"
)
ITEM_TAG_CAPTION = "the mean item score over the items with the tag, 95% bootstrap CI"
POOLED_CAPTION = (
    "pooled over the (item, criterion) pairs of binary item criteria, then per criterion tag; "
    "no intervals (pairs of one item are not independent)"
)
TRUTH_COLUMNS = ["accuracy", "precision", "recall", "f1", "cohen_kappa"]
ALL = "(all)"  # the row of every pair, before the rows of each tag


def item_criteria_table(report: Report) -> RowsTable | None:
    s = report.item_criteria
    if s is None:
        return None
    row = [number(s.count), number(s.items), number(s.met_rate), number(s.cannot_assess_rate)]
    caption = (
        "the items' own criteria, over every (item, criterion) pair; met rate: binary ones; "
        f"{not_assessed_note('the pairs')}"
    )
    return RowsTable("Item criteria", ITEM_CRITERIA_HEADER, [row], caption, "item-criteria-summary")


def tag_group(tag: str) -> str:
    """The text before the first `:` (`axis` for `axis:accuracy`); empty without one."""
    return tag.split(":", 1)[0] if ":" in tag else ""


def tag_row(tag: str, entry: TagEntry, criteria: bool) -> list[str]:
    row = [tag, number(entry.score), interval(entry.ci95), number(entry.n_items)]
    return row + [number(entry.n_criteria)] if criteria else row


def tag_tables(report: Report) -> list[RowsTable]:
    """One table per group of criterion tags, then per group of item tags."""
    tags: TagsSection | None = report.tags
    if tags is None:
        return []
    clip = " (clip: mean: means and intervals clamped to [0, 1])" if report.score.clip else ""
    tables = []
    for kind, entries, caption in (
        ("Criterion tags", tags.criteria, CRITERION_TAG_CAPTION),
        ("Item tags", tags.items, ITEM_TAG_CAPTION),
    ):
        criteria = kind == "Criterion tags"
        header = ["tag", "score", "95% CI", "items"] + (["pairs"] if criteria else [])
        groups: dict[str, list[list[str]]] = {}
        for tag, entry in entries.items():
            groups.setdefault(tag_group(tag), []).append(tag_row(tag, entry, criteria))
        for position, (group, rows) in enumerate(sorted(groups.items()), start=1):
            title = f"{kind}: {group}" if group else kind
            key = f"tags-{'criteria' if criteria else 'items'}-{group or 'other'}"
            last = position == len(groups)  # the caption once, under the kind's last table
            tables.append(RowsTable(title, header, rows, caption + clip if last else "", key))
    return tables


def pooled_agreement_table(pooled: PooledAgreement | None) -> RowsTable | None:
    if pooled is None:
        return None
    header = ["criterion tag", *HEADERS, "pairwise Cohen κ"]
    header[1] = "pairs (2+ judges)"
    blocks: list[tuple[str, CriterionAgreement]] = [(ALL, pooled), *pooled.tags.items()]
    rows = [
        [
            scope,
            number(block.n_items),
            *(number(v) for v in coefficients(block)),
            "; ".join(f"{k} {number(v)}" for k, v in block.pairwise_cohen_kappa.items())
            or number(None),
        ]
        for scope, block in blocks
    ]
    title = "Agreement between judges: item criteria, pooled"
    return RowsTable(title, header, rows, POOLED_CAPTION, "pooled-agreement")


def pooled_truth_table(pooled: PooledGroundTruth | None, title: str, key: str) -> RowsTable | None:
    if pooled is None:
        return None
    rows = []
    for scope, block in [(ALL, pooled), *pooled.tags.items()]:
        predictors: dict[str, BinaryMetrics] = {"ensemble": block.ensemble, **block.judges}
        for name, figures in predictors.items():
            cells = [number(getattr(figures, k)) for k in TRUTH_COLUMNS]
            rows.append([scope, name, number(figures.n), *cells])
    header = ["criterion tag", "judge", "n", "accuracy", "precision", "recall", "F1", "Cohen κ"]
    return RowsTable(title, header, rows, POOLED_CAPTION, key)


def item_tables(report: Report) -> list[RowsTable]:
    """Every item-criteria and tags table of the report, in the order they are shown."""
    found = [item_criteria_table(report), *tag_tables(report)]
    if len(report.judges) >= 2:  # agreement between judges needs two
        found.append(pooled_agreement_table(report.agreement.pooled))
    truth = report.ground_truth
    found.append(
        pooled_truth_table(
            None if truth is None else truth.pooled,
            f"Ground truth: item criteria, pooled (ca_mode={truth.ca_mode})" if truth else "",
            "pooled-truth",
        )
    )
    labels = report.human_labels
    judges = None if labels is None else labels.judges
    found.append(
        pooled_truth_table(
            None if judges is None else judges.pooled,
            "Judges against the human labels: item criteria, pooled",
            "pooled-labels",
        )
    )
    return [t for t in found if t is not None]


TEXT_COLUMNS = ("tag", "criterion tag", "judge")


def rich_rows(table: RowsTable) -> Table:
    out = Table(title=table.title, caption=table.caption or None)
    for column in table.header:
        out.add_column(column, justify="left" if column in TEXT_COLUMNS else "right")
    for row in table.rows:
        out.add_row(*row)
    return out
