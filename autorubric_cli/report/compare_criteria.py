"""The `criteria` block of a comparison (docs/guides/compare.md): one paired test per criterion,
Holm over all.

A criterion is compared on the paired items where both sides give it a class under the
report's `--ca-mode` (`metrics.codes`): binary → MET rates and exact McNemar on MET vs not MET;
ordinal → mean option values and Wilcoxon on the pairs where both sides picked a valued option;
nominal → both distributions and Stuart–Maxwell. A criterion the experiments do not share (or
share with different options) is listed with null figures and the reason.
"""

from __future__ import annotations

import numpy as np

from autorubric_cli.core.rubric import Criterion
from autorubric_cli.metrics.codes import ClassPairs, Scale, build_scale, compared_pairs
from autorubric_cli.metrics.figures import Figure, Undefined
from autorubric_cli.metrics.paired import (
    differences,
    holm,
    mcnemar_exact_p,
    square_table,
    stuart_maxwell_p,
    wilcoxon_p,
)
from autorubric_cli.report.fold_codes import option_labels, option_values
from autorubric_cli.report.models_compare import (
    CriterionComparison,
    Distributions,
    UncomparedCriterion,
)

TESTS = {"binary": "mcnemar_exact", "ordinal": "wilcoxon", "nominal": "stuart_maxwell"}
NONE_ASSESSED = "no paired item is assessed on both sides (CANNOT_ASSESS/NA under --ca-mode {})"


def shape(criterion: Criterion) -> tuple[str, list[str], list[float | None]]:
    return criterion.kind, option_labels(criterion), option_values(criterion)


Entry = CriterionComparison | UncomparedCriterion


def criteria_block(
    base: dict[str, Criterion],
    new: dict[str, Criterion],
    base_codes: dict[str, np.ndarray],
    new_codes: dict[str, np.ndarray],
    ca_mode: str,
) -> list[Entry]:
    """Every criterion of either side, BASE's order first; `p_adjusted` by Holm."""
    names = [*base, *(n for n in new if n not in base)]
    entries: list[Entry] = []
    p_values: list[Figure] = []
    for name in names:
        entry: Entry
        p: Figure
        if name not in new or name not in base:
            side = "BASE" if name in base else "NEW"
            criterion = base.get(name) or new[name]
            reason = f"the criterion is only in {side}"
            entry, p = empty_entry(criterion, reason, only=side.lower()), Undefined(reason)
        elif shape(base[name]) != shape(new[name]):
            reason = "the criterion's kind or options differ"
            entry, p = empty_entry(base[name], reason), Undefined(reason)
        else:
            criterion = base[name]
            kind, labels, values = shape(criterion)
            scale = build_scale(kind, labels, values, ca_mode)  # type: ignore[arg-type]
            pairs = compared_pairs(base_codes[name], new_codes[name], scale)
            entry, p = compare_criterion(criterion, scale, pairs, ca_mode)
        entries.append(entry)
        p_values.append(p)
    return [with_adjusted(e, a) for e, a in zip(entries, holm(p_values), strict=True)]


def with_adjusted(entry: Entry, adjusted: Figure) -> Entry:
    """The entry with its Holm-adjusted p-value (or the reason there is none)."""
    if isinstance(adjusted, Undefined):
        undefined = entry.undefined | {"p_adjusted": adjusted.reason}
        return entry.model_copy(update={"p_adjusted": None, "undefined": undefined})
    return entry.model_copy(update={"p_adjusted": float(adjusted)})


def empty_entry(
    criterion: Criterion, reason: str, *, test: str | None = None, only: str | None = None
) -> UncomparedCriterion:
    keys = ("base", "new", "diff", "p_value")
    return UncomparedCriterion(
        name=criterion.name,
        kind=criterion.kind,
        weight=criterion.weight,
        test=test,
        n=0,
        undefined=dict.fromkeys(keys, reason),
        only=only,
    )


def figure(value: Figure, key: str, undefined: dict[str, str]) -> float | None:
    """The figure as a JSON number, or None with its reason put under `key`."""
    if isinstance(value, Undefined):
        undefined[key] = value.reason
        return None
    return float(value)


def compare_criterion(
    criterion: Criterion, scale: Scale, pairs: ClassPairs, ca_mode: str
) -> tuple[Entry, Figure]:
    if pairs.n == 0:
        reason = NONE_ASSESSED.format(ca_mode)
        return empty_entry(criterion, reason, test=TESTS[criterion.kind]), Undefined(reason)
    undefined: dict[str, str] = {}
    table = square_table(pairs.truth, pairs.pred, scale.n_classes)
    n_valued = None
    if criterion.kind == "binary":
        means, p = binary_figures(table, scale)
    elif criterion.kind == "ordinal":
        n_valued, means, p = ordinal_figures(pairs, scale)
    else:
        none = Undefined("a nominal criterion has no mean")
        means, p = (none, none, none), stuart_maxwell_p(table)
    base, new, diff = (figure(v, k, undefined) for k, v in zip(MEANS, means, strict=True))
    entry = CriterionComparison(
        name=criterion.name,
        kind=criterion.kind,
        weight=criterion.weight,
        test=TESTS[criterion.kind],
        n=pairs.n,
        n_valued=n_valued,
        base=base,
        new=new,
        diff=diff,
        p_value=figure(p, "p_value", undefined),
        transitions=transitions(table, scale, criterion.kind == "binary"),
        distribution=Distributions(
            base=dict(zip(scale.labels, map(int, table.sum(axis=1)), strict=True)),
            new=dict(zip(scale.labels, map(int, table.sum(axis=0)), strict=True)),
        ),
        undefined=undefined,
    )
    return entry, p


MEANS = ("base", "new", "diff")
Means = tuple[Figure, Figure, Figure]


def binary_figures(table: np.ndarray, scale: Scale) -> tuple[Means, Figure]:
    """MET rates of BASE and NEW, their difference, and McNemar's exact p-value."""
    met = scale.labels.index("MET")
    n = int(table.sum())
    base_met, new_met = int(table[met, :].sum()), int(table[:, met].sum())
    both = int(table[met, met])
    means = (base_met / n, new_met / n, (new_met - base_met) / n)
    return means, mcnemar_exact_p(new_met - both, base_met - both)


def ordinal_figures(pairs: ClassPairs, scale: Scale) -> tuple[int, Means, Figure]:
    """(pairs valued on both sides, mean option values and their difference, Wilcoxon p)."""
    values = np.array([np.nan if v is None else v for v in scale.values])
    base, new = values[pairs.truth], values[pairs.pred]
    valued = ~(np.isnan(base) | np.isnan(new))
    diffs = differences(base[valued], new[valued])
    n_valued = int(valued.sum())
    if not valued.any():
        none = Undefined("no pair has an option value on both sides")
        return n_valued, (none, none, none), none
    means = (float(base[valued].mean()), float(new[valued].mean()), float(diffs.mean()))
    return n_valued, means, wilcoxon_p(diffs)


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
