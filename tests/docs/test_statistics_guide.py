"""The statistics guide's example shows what its text says: items that cluster widen the
interval, by the factor the text gives, and the plan's ICC is positive. The quoted output is the
program's own (its `output:` notes are checked by test_docs_examples.py); this reads the figures
off it, so a page that says "several times too narrow" above a clustered standard error smaller
than the naive one fails."""

from __future__ import annotations

import re

from tests.docs.doc_blocks import ROOT, page_blocks

PAGE = ROOT / "docs" / "guides" / "statistics.md"


def quoted(start: str) -> str:
    (block,) = [
        b.text for b in page_blocks(PAGE) if "output" in b.notes and b.text.startswith(start)
    ]
    return block


def figure(pattern: str, text: str) -> float:
    found = re.search(pattern, " ".join(text.split()))
    assert found, pattern
    return float(found.group(1).replace(",", ""))


def test_the_clustered_interval_is_wider_by_the_factor_the_text_gives() -> None:
    shown = quoted("95% CI: clustered by")
    clustered = figure(r"clustered se ([\d.]+)", shown)
    naive = figure(r"as if independent: \[[^]]*\], se ([\d.]+)", shown)
    assert clustered > naive
    said = figure(r"The clustered standard error is ([\d.]+) times the naive one", PAGE.read_text())
    assert said == round(clustered / naive, 1)


def test_the_plan_rests_on_clusters_that_are_alike_within() -> None:
    shown = quoted("To detect a change")
    assert figure(r"ICC (-?[\d.]+)", shown) > 0
    assert figure(r"design effect ([\d.]+)", shown) > 1
    independent = figure(r"([\d,]+) paired items, items independent", shown)
    clustered = figure(r"([\d,]+) paired items with clusters", shown)
    assert clustered > independent
