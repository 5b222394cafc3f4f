"""The items' own criteria in a comparison (docs/guides/compare.md, "Per-item rubrics").

On each paired item, an item criterion is paired with the one of the same name on the other side
when their definitions are the same (requirement, weight, options, kind, aggregation, scope,
elicitation; tags may differ). A criterion whose definition changed, or that only one side has,
is left out, and the items where that happens are named in a warning; their scores are compared
as they are, each under its own rubric.

The paired binary criteria are pooled into one entry computed as a shared binary criterion's is
(MET rates over the pairs assessed on both sides, transitions, distributions); its p-value is
not McNemar's on the pooled pairs, which would take the criteria of one item for independent
units, but Wilcoxon's signed-rank test on each item's change of MET rate, items being the
units, as the score's test is (`test: "wilcoxon_items"`).
"""

from __future__ import annotations

import numpy as np

from autorubric_cli.core.words import plural
from autorubric_cli.metrics.codes import ClassPairs, Scale, build_scale, compared_pairs
from autorubric_cli.metrics.figures import Figure
from autorubric_cli.metrics.paired import wilcoxon_p
from autorubric_cli.report.compare_criteria import compare_criterion, figure
from autorubric_cli.report.compare_read import NOT_BINARY, Side
from autorubric_cli.report.compare_warnings import named
from autorubric_cli.report.fold_items import POOLED, pooled_criterion
from autorubric_cli.report.models_compare import ItemCriteriaComparison

ITEM_TEST = "wilcoxon_items"


def paired_codes(
    base: Side, new: Side, rows: tuple[np.ndarray, np.ndarray], ids: list[str]
) -> tuple[list[tuple[int, int, int]], list[str], int, int]:
    """([(item position, base code, new code)] of the paired binary item criteria, the items
    whose rubrics differ, the criteria left out, the items with item criteria)."""
    codes: list[tuple[int, int, int]] = []
    differing: list[str] = []
    left_out = with_own = 0
    for k, (b_row, n_row) in enumerate(zip(*rows, strict=True)):
        b, n = base.own.of(int(b_row)), new.own.of(int(n_row))
        if not b and not n:
            continue
        with_own += 1
        same = [name for name in b if name in n and b[name][0] == n[name][0]]
        out = len(b) + len(n) - 2 * len(same)
        if out:
            differing.append(ids[k])
            left_out += out
        codes += [(k, b[m][1], n[m][1]) for m in same if b[m][1] != NOT_BINARY]
    return codes, differing, left_out, with_own


def item_criteria_comparison(
    base: Side, new: Side, rows: tuple[np.ndarray, np.ndarray], ids: list[str], ca_mode: str
) -> tuple[ItemCriteriaComparison | None, list[str]]:
    """The block and its warning; None (and no warning) when no paired item has criteria of
    its own on either side."""
    codes, differing, left_out, with_own = paired_codes(base, new, rows, ids)
    if not with_own:
        return None, []
    criterion = pooled_criterion(POOLED)
    scale = build_scale("binary", ["UNMET", "MET"], [0.0, 1.0], ca_mode)
    item = np.array([k for k, _, _ in codes], dtype=np.int64)
    b_codes = np.array([c for _, c, _ in codes], dtype=np.int64)
    n_codes = np.array([c for _, _, c in codes], dtype=np.int64)
    pairs = compared_pairs(b_codes, n_codes, scale)
    entry, _ = compare_criterion(criterion, scale, pairs, ca_mode)
    undefined = {k: v for k, v in entry.undefined.items() if k != "p_value"}
    p = figure(item_change_p(item[pairs.items], pairs, scale), "p_value", undefined)
    entry = entry.model_copy(update={"test": ITEM_TEST, "p_value": p, "undefined": undefined})
    warnings = []
    if differing:
        warnings.append(
            f"{plural(len(differing), 'item')} {'has' if len(differing) == 1 else 'have'} "
            "different rubrics in BASE and NEW: "
            f"{named(differing)}; their criteria of the same name and definition are paired, "
            f"the other {left_out} (changed, or on one side only) are left out of item_criteria; "
            "their scores are compared as they are"
        )
    block = ItemCriteriaComparison(
        items=with_own,
        paired_criteria=len(codes),
        left_out=left_out,
        differing_items=len(differing),
        pooled=entry,
    )
    return block, warnings


def item_change_p(items: np.ndarray, pairs: ClassPairs, scale: Scale) -> Figure:
    """Wilcoxon's p-value of each item's change of MET rate (NEW − BASE) over its compared
    pairs; `items`: the item of each compared pair."""
    met = scale.labels.index("MET")
    base_met = (pairs.truth == met).astype(np.float64)
    new_met = (pairs.pred == met).astype(np.float64)
    _, inverse = np.unique(items, return_inverse=True)
    counts = np.bincount(inverse)
    change = (np.bincount(inverse, new_met) - np.bincount(inverse, base_met)) / counts
    return wilcoxon_p(change)
