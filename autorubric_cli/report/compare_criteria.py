"""The `criteria` block of a comparison (SPEC §12): one paired test per criterion, Holm over all.

A criterion is compared on the paired items where both sides give it a class under the
report's `--ca-mode` (`metrics.codes`): binary → MET rates and exact McNemar on MET vs not MET;
ordinal → mean option values and Wilcoxon on the pairs where both sides picked a valued option;
nominal → both distributions and Stuart–Maxwell. A criterion the experiments do not share (or
share with different options) is listed with null figures and the reason.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from autorubric_cli.core.rubric import Criterion
from autorubric_cli.metrics.codes import ClassPairs, Scale, build_scale, compared_pairs
from autorubric_cli.metrics.figures import Figure, Undefined, put_figure
from autorubric_cli.metrics.paired import (
    differences,
    holm,
    mcnemar_exact_p,
    square_table,
    stuart_maxwell_p,
    wilcoxon_p,
)
from autorubric_cli.report.fold import option_labels, option_values

TESTS = {"binary": "mcnemar_exact", "ordinal": "wilcoxon", "nominal": "stuart_maxwell"}
NONE_ASSESSED = "no paired item is assessed on both sides (CANNOT_ASSESS/NA under --ca-mode {})"


def shape(criterion: Criterion) -> tuple[str, list[str], list[float | None]]:
    return criterion.kind, option_labels(criterion), option_values(criterion)


def criteria_block(
    base: dict[str, Criterion],
    new: dict[str, Criterion],
    base_codes: dict[str, np.ndarray],
    new_codes: dict[str, np.ndarray],
    ca_mode: str,
) -> list[dict[str, Any]]:
    """Every criterion of either side, BASE's order first; `p_adjusted` by Holm."""
    names = [*base, *(n for n in new if n not in base)]
    entries: list[dict[str, Any]] = []
    p_values: list[Figure] = []
    for name in names:
        if name not in new or name not in base:
            side = "BASE" if name in base else "NEW"
            criterion = base.get(name) or new[name]
            entry = empty_entry(criterion, f"the criterion is only in {side}")
            entry["only"] = side.lower()
            p: Figure = Undefined(entry["undefined"]["p_value"])
        elif shape(base[name]) != shape(new[name]):
            entry = empty_entry(base[name], "the criterion's kind or options differ")
            p = Undefined(entry["undefined"]["p_value"])
        else:
            criterion = base[name]
            kind, labels, values = shape(criterion)
            scale = build_scale(kind, labels, values, ca_mode)  # type: ignore[arg-type]
            pairs = compared_pairs(base_codes[name], new_codes[name], scale)
            entry, p = compare_criterion(criterion, scale, pairs, ca_mode)
        entries.append(entry)
        p_values.append(p)
    for entry, adjusted in zip(entries, holm(p_values), strict=True):
        put_figure(entry, "p_adjusted", adjusted, entry["undefined"])
    return entries


def empty_entry(criterion: Criterion, reason: str) -> dict[str, Any]:
    keys = ("base", "new", "diff", "p_value")
    return {
        "name": criterion.name,
        "kind": criterion.kind,
        "weight": criterion.weight,
        **dict.fromkeys(keys),
        "test": None,
        "n": 0,
        "transitions": {},
        "undefined": dict.fromkeys(keys, reason),
    }


def compare_criterion(
    criterion: Criterion, scale: Scale, pairs: ClassPairs, ca_mode: str
) -> tuple[dict[str, Any], Figure]:
    if pairs.n == 0:
        reason = NONE_ASSESSED.format(ca_mode)
        return empty_entry(criterion, reason) | {"test": TESTS[criterion.kind]}, Undefined(reason)
    undefined: dict[str, str] = {}
    entry: dict[str, Any] = {
        "name": criterion.name,
        "kind": criterion.kind,
        "weight": criterion.weight,
        "test": TESTS[criterion.kind],
        "n": pairs.n,
    }
    table = square_table(pairs.truth, pairs.pred, scale.n_classes)
    if criterion.kind == "binary":
        p = binary_figures(entry, table, scale)
    elif criterion.kind == "ordinal":
        p = ordinal_figures(entry, pairs, scale, undefined)
    else:
        for key in ("base", "new", "diff"):
            put_figure(entry, key, Undefined("a nominal criterion has no mean"), undefined)
        p = stuart_maxwell_p(table)
    put_figure(entry, "p_value", p, undefined)
    entry["transitions"] = transitions(table, scale, criterion.kind == "binary")
    entry["distribution"] = {
        "base": dict(zip(scale.labels, map(int, table.sum(axis=1)), strict=True)),
        "new": dict(zip(scale.labels, map(int, table.sum(axis=0)), strict=True)),
    }
    entry["undefined"] = undefined
    return entry, p


def binary_figures(entry: dict[str, Any], table: np.ndarray, scale: Scale) -> Figure:
    met = scale.labels.index("MET")
    n = int(table.sum())
    base_met, new_met = int(table[met, :].sum()), int(table[:, met].sum())
    both = int(table[met, met])
    entry["base"], entry["new"] = base_met / n, new_met / n
    entry["diff"] = (new_met - base_met) / n
    return mcnemar_exact_p(new_met - both, base_met - both)


def ordinal_figures(
    entry: dict[str, Any], pairs: ClassPairs, scale: Scale, undefined: dict[str, str]
) -> Figure:
    values = np.array([np.nan if v is None else v for v in scale.values])
    base, new = values[pairs.truth], values[pairs.pred]
    valued = ~(np.isnan(base) | np.isnan(new))
    diffs = differences(base[valued], new[valued])
    entry["n_valued"] = int(valued.sum())
    if not valued.any():
        none = Undefined("no pair has an option value on both sides")
        for key in ("base", "new", "diff"):
            put_figure(entry, key, none, undefined)
        return none
    entry["base"] = float(base[valued].mean())
    entry["new"] = float(new[valued].mean())
    entry["diff"] = float(diffs.mean())
    return wilcoxon_p(diffs)


def transitions(table: np.ndarray, scale: Scale, binary: bool) -> dict[str, int]:
    """'A->B': pairs that moved from class A (BASE) to class B (NEW); binary always has the two
    MET/UNMET moves, other moves only when they happened."""
    out: dict[str, int] = {}
    if binary:
        met, unmet = scale.labels.index("MET"), scale.labels.index("UNMET")
        out["MET->UNMET"] = int(table[met, unmet])
        out["UNMET->MET"] = int(table[unmet, met])
    for i, j in zip(*np.nonzero(table), strict=True):
        if i != j:
            out.setdefault(f"{scale.labels[i]}->{scale.labels[j]}", int(table[i, j]))
    return out
