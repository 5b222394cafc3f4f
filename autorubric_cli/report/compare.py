"""`autorubric compare BASE NEW` (docs/guides/compare.md): pair items by id, call the paired tests,
gate.

Items are paired by `id` (the newest line per id on each side); a pair where either side
errored or has no score is left out and counted. Pairs are taken in BASE's dataset order
(then id), so no figure depends on the order of lines in either items.jsonl. Every number
comes from `metrics.paired` and `metrics.mean_ci`; this module only pairs, arranges the
JSON and gates.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from autorubric_cli.core.config import GateCheck
from autorubric_cli.core.gate import evaluate_check
from autorubric_cli.core.json_model import to_json_dict
from autorubric_cli.core.words import plural
from autorubric_cli.experiment.manifest import ITEMS
from autorubric_cli.metrics.figures import Undefined
from autorubric_cli.metrics.mean_ci import NO_PAIRS, bootstrap_mean_ci
from autorubric_cli.metrics.paired import differences, sign_test_p, wilcoxon_p
from autorubric_cli.report.compare_criteria import criteria_block, figure
from autorubric_cli.report.compare_items import item_criteria_comparison
from autorubric_cli.report.compare_options import CompareOptions, check_options
from autorubric_cli.report.compare_power import (
    compare_cluster,
    compare_cluster_warnings,
    pair_clusters,
    with_power,
)
from autorubric_cli.report.compare_read import Side, read_sides
from autorubric_cli.report.compare_warnings import named, setting_warnings
from autorubric_cli.report.compare_words import deciding_test
from autorubric_cli.report.models import GateCheckResult
from autorubric_cli.report.models_compare import (
    CompareCheck,
    CompareGate,
    CompareResult,
    CompareSide,
    ErroredCounts,
    Flip,
    JudgeComparison,
    MovedItem,
    PairCounts,
    RegressionCheck,
    ScoreComparison,
)


@dataclass
class Pairs:
    ids: list[str]
    base_rows: np.ndarray
    new_rows: np.ndarray

    def rows(self) -> tuple[np.ndarray, np.ndarray]:
        return self.base_rows, self.new_rows


def compare_experiments(base_dir: Path, new_dir: Path, options: CompareOptions) -> dict[str, Any]:
    """The comparison's JSON form, as `compare --format json` prints it."""
    return to_json_dict(compare_result(base_dir, new_dir, options))


def compare_result(base_dir: Path, new_dir: Path, options: CompareOptions) -> CompareResult:
    """The docs/guides/compare.md comparison of two experiment directories, from items.jsonl
    alone."""
    check_options(options)
    key, path = compare_cluster(options.cluster, base_dir, new_dir)
    base, new = read_sides(base_dir, new_dir, path)
    pairs, items, warnings = pair_items(base, new)
    warnings = setting_warnings(base.experiment, new.experiment) + warnings
    for side in (base, new):
        warnings += side.issues.warnings(side.experiment.directory / ITEMS)
    errored = {"base": sum(base.errored), "new": sum(new.errored)}
    if errored["base"]:
        warnings.append(
            f"BASE has {plural(errored['base'], 'errored item')}: left out; they do not make the "
            "exit code 3 (only NEW's errors do)"
        )
    seed = base.experiment.manifest.seed if options.seed is None else options.seed
    b_scores = np.frombuffer(base.score)[pairs.base_rows]
    n_scores = np.frombuffer(new.score)[pairs.new_rows]
    diffs = differences(b_scores, n_scores)
    codes = {
        name: (np.frombuffer(base.codes[name], dtype=np.int8)[pairs.base_rows].astype(np.int64))
        for name in base.codes
    }
    new_codes = {
        name: (np.frombuffer(new.codes[name], dtype=np.int8)[pairs.new_rows].astype(np.int64))
        for name in new.codes
    }
    own, own_warnings = item_criteria_comparison(
        base, new, pairs.rows(), pairs.ids, options.ca_mode
    )
    warnings += own_warnings
    clusters = [] if key is None else pair_clusters(base.clusters, new.clusters, *pairs.rows())
    score = with_power(
        score_block(b_scores, n_scores, diffs, seed), diffs, options.alpha, key, clusters
    )
    seen = base.cluster_keys | new.cluster_keys
    warnings += compare_cluster_warnings(key, clusters, seen, score.clustered)
    return CompareResult(
        base=CompareSide(experiment=base.name, path=str(base_dir)),
        new=CompareSide(experiment=new.name, path=str(new_dir)),
        warnings=warnings,
        items=items,
        errored=ErroredCounts(base=errored["base"], new=errored["new"]),
        score=score,
        criteria=criteria_block(
            {c.name: c for c in base.criteria},
            {c.name: c for c in new.criteria},
            codes,
            new_codes,
            options.ca_mode,
        ),
        item_criteria=own,
        judges=judges_block(base, new, pairs),
        moved=moved_items(pairs, diffs, b_scores, n_scores, codes, new_codes, base, options.top),
        ca_mode=options.ca_mode,
        seed=seed,
        gate=gate_block(score, options),
    )


def pair_items(base: Side, new: Side) -> tuple[Pairs, PairCounts, list[str]]:
    """Usable pairs in BASE's dataset order, the item counts and the warnings they call for."""
    common = base.rows.keys() & new.rows.keys()
    only_base = base.rows.keys() - common
    only_new = new.rows.keys() - common
    b_usable, n_usable = np.frombuffer(base.usable, np.int8), np.frombuffer(new.usable, np.int8)
    b_index = np.frombuffer(base.index, np.int64)
    excluded = [i for i in common if not (b_usable[base.rows[i]] and n_usable[new.rows[i]])]
    errored = [i for i in excluded if base.errored[base.rows[i]] or new.errored[new.rows[i]]]
    dropped = set(excluded)
    ids = sorted((i for i in common if i not in dropped), key=lambda i: (b_index[base.rows[i]], i))
    pairs = Pairs(
        ids,
        np.array([base.rows[i] for i in ids], dtype=np.int64),
        np.array([new.rows[i] for i in ids], dtype=np.int64),
    )
    items = PairCounts(
        paired=len(ids),
        only_base=len(only_base),
        only_new=len(only_new),
        excluded=len(excluded),
        excluded_errored=len(errored),
    )
    warnings = []
    if only_base:
        warnings.append(f"{plural(len(only_base), 'item')} only in BASE: {named(only_base)}")
    if only_new:
        warnings.append(f"{plural(len(only_new), 'item')} only in NEW: {named(only_new)}")
    if excluded:
        warnings.append(
            f"{plural(len(excluded), 'paired item')} excluded (errored or no score on a side; "
            f"{len(errored)} errored): {named(excluded)}"
        )
    if not ids:
        warnings.append("no paired items: the experiments share no gradable item id")
    return pairs, items, warnings


def score_block(base: np.ndarray, new: np.ndarray, diffs: np.ndarray, seed: int) -> ScoreComparison:
    undefined: dict[str, str] = {}
    n = diffs.size
    means = [
        figure(float(values.mean()) if n else Undefined(NO_PAIRS), key, undefined)
        for key, values in (("base_mean", base), ("new_mean", new), ("diff", diffs))
    ]
    interval = bootstrap_mean_ci(diffs, seed)
    ci95 = None
    if isinstance(interval, Undefined):
        undefined["ci95"] = interval.reason
    else:
        ci95 = [interval.low, interval.high]
    p_value = figure(wilcoxon_p(diffs), "p_value", undefined)
    improved, regressed = int((diffs > 0).sum()), int((diffs < 0).sum())
    p_value_sign = figure(sign_test_p(improved, regressed), "p_value_sign", undefined)
    if n == 0:
        undefined["p_value_sign"] = NO_PAIRS
    return ScoreComparison(
        base_mean=means[0],
        new_mean=means[1],
        diff=means[2],
        ci95=ci95,
        p_value=p_value,
        p_value_sign=p_value_sign,
        improved=improved,
        regressed=regressed,
        unchanged=n - improved - regressed,
        n=n,
        undefined=undefined,
    )


def judges_block(base: Side, new: Side, pairs: Pairs) -> list[JudgeComparison]:
    """Mean judge score over the paired items where the judge scored on both sides."""
    out = []
    for judge in [*base.judge_ids, *(j for j in new.judge_ids if j not in base.judge_ids)]:
        b = judge_column(base, judge, pairs.base_rows)
        n = judge_column(new, judge, pairs.new_rows)
        if b is None or n is None:
            only = b if n is None else n
            assert only is not None
            defined = only[~np.isnan(only)]
            mean = float(defined.mean()) if defined.size else None
            side = "base" if n is None else "new"
            out.append(
                JudgeComparison(
                    id=judge,
                    base_mean=mean if side == "base" else None,
                    new_mean=mean if side == "new" else None,
                    diff=None,
                    n=0,
                    only=side,
                )
            )
            continue
        both = ~(np.isnan(b) | np.isnan(n))
        count = int(both.sum())
        out.append(
            JudgeComparison(
                id=judge,
                base_mean=float(b[both].mean()) if count else None,
                new_mean=float(n[both].mean()) if count else None,
                diff=float(differences(b[both], n[both]).mean()) if count else None,
                n=count,
            )
        )
    return out


def judge_column(side: Side, judge: str, rows: np.ndarray) -> np.ndarray | None:
    scores = side.judge_scores.get(judge)
    return None if scores is None else np.frombuffer(scores)[rows]


def moved_items(
    pairs: Pairs,
    diffs: np.ndarray,
    base_scores: np.ndarray,
    new_scores: np.ndarray,
    base_codes: dict[str, np.ndarray],
    new_codes: dict[str, np.ndarray],
    base: Side,
    top: int,
) -> list[MovedItem]:
    """The `top` pairs with the largest |score change|, then the most criterion flips."""
    shared = [c for c in base.criteria if c.name in new_codes]
    flips = np.zeros(diffs.size, dtype=np.int64)
    for criterion in shared:
        flips += base_codes[criterion.name] != new_codes[criterion.name]
    moved = np.flatnonzero((diffs != 0) | (flips > 0))
    order = moved[np.lexsort((moved, -flips[moved], -np.abs(diffs[moved])))][:top]
    out = []
    for k in order:
        changes = [
            Flip(
                criterion=c.name,
                base=code_label(c, int(base_codes[c.name][k])),
                new=code_label(c, int(new_codes[c.name][k])),
            )
            for c in shared
            if base_codes[c.name][k] != new_codes[c.name][k]
        ]
        out.append(
            MovedItem(
                id=pairs.ids[k],
                base=float(base_scores[k]),
                new=float(new_scores[k]),
                diff=float(diffs[k]),
                flips=changes,
            )
        )
    return out


def code_label(criterion: Any, code: int) -> str:
    if code < 0:
        return "CANNOT_ASSESS" if criterion.options is None else "NA"
    if criterion.options is None:
        return "MET" if code == 1 else "UNMET"
    return str(criterion.options[code].label)


def gate_block(score: ScoreComparison, options: CompareOptions) -> CompareGate | None:
    """The `--max-drop` check reads the metric path `score.diff` of the JSON form, as the
    report's gate does (`core.gate`)."""
    checks: list[CompareCheck] = []
    if options.max_drop is not None:
        drop = GateCheck(metric="score.diff", min=-options.max_drop)
        result = evaluate_check({"score": to_json_dict(score)}, drop)
        checks.append(GateCheckResult.model_validate(result))
    if options.fail_on_regression:
        checks.append(regression_check(score, options.alpha))
    if not checks:
        return None
    return CompareGate(passed=all(c.passed for c in checks), checks=checks)


def regression_check(score: ScoreComparison, alpha: float) -> RegressionCheck:
    """Fails when NEW is worse (diff < 0) and the p-value is below alpha: the clustered one
    when there is a cluster key, else Wilcoxon's."""
    diff = score.diff
    test, p = deciding_test(score)
    metric = "score.regression"
    if diff is None:
        reason = "no paired items"
        return RegressionCheck(
            metric=metric, alpha=alpha, diff=diff, value=None, passed=False, reason=reason
        )
    if p is None:
        why = score.undefined.get("p_value", "p-value undefined") if test == "wilcoxon" else None
        reason = f"not significant: {why or 'p-value undefined'}"
        return RegressionCheck(
            metric=metric, alpha=alpha, diff=diff, value=None, passed=True, reason=reason, test=test
        )
    passed = not (diff < 0 and p < alpha)
    return RegressionCheck(metric=metric, alpha=alpha, diff=diff, value=p, passed=passed, test=test)


def exit_code(result: dict[str, Any]) -> int:
    """`compare_exit_code` of a comparison's JSON form."""
    return compare_exit_code(CompareResult.model_validate(result))


def compare_exit_code(result: CompareResult) -> int:
    """docs/reference/exit-codes.md, docs/guides/compare.md: 1 when a gate check failed on a defined
    value; else 3 when NEW (the run under test) has errored items, or a failed check is undefined
    while errored items were left out; else 1 when a check failed; else 0. BASE's errored items
    alone are a warning."""
    failed = [] if result.gate is None else [c for c in result.gate.checks if not c.passed]
    if any(c.value is not None for c in failed):
        return 1
    if result.errored.new:
        return 3
    if failed and result.items.excluded_errored:
        return 3
    return 1 if failed else 0
