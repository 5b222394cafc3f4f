"""Criterion comparisons from label codes, under each ca_mode, against sklearn and scipy."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from metrics_cases import assert_figure, assert_undefined, for_each_seed, skewed_probs
from scipy import stats
from sklearn import metrics as skm

from autorubric_cli.metrics.bootstrap import resample_counts
from autorubric_cli.metrics.codes import ABSTAIN, MISSING, build_scale
from autorubric_cli.metrics.comparison import compare_labels, label_statistics, summarize
from autorubric_cli.metrics.figures import Undefined

CA_MODES = ["exclude", "as_unmet", "as_category"]
KINDS = ["binary", "ordinal", "nominal"]
ORDER_METRICS = [
    "adjacent_accuracy",
    "linear_kappa",
    "quadratic_kappa",
    "spearman",
    "kendall",
    "rmse",
    "mae",
]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def rubric_options(rng: np.random.Generator, kind: str) -> tuple[list[str], list[float | None]]:
    """Binary, or 2-5 options with unordered, sometimes tied values and NA options."""
    if kind == "binary":
        return ["UNMET", "MET"], [0.0, 1.0]
    k = int(rng.integers(2, 6))
    values: list[float | None] = [float(v) for v in rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], k)]
    if rng.random() < 0.3:
        values = sorted(values)  # type: ignore[type-var]
    for _ in range(int(rng.integers(0, 2))):
        values.insert(int(rng.integers(0, len(values) + 1)), None)
    return [f"opt{i}" for i in range(len(values))], values


def code_case(seed: int, kind: str) -> tuple[list[str], list[float | None], np.ndarray, np.ndarray]:
    """Rubric options and truth / predicted codes with missing, abstain and NA codes."""
    rng = np.random.default_rng(30_000 + seed)
    labels, values = rubric_options(rng, kind)
    n = int(rng.choice([1, 2, 5, 20, 80, 200]))
    probs = skewed_probs(rng, len(values))
    truth = rng.choice(len(values), size=n, p=probs)
    noise = rng.choice(len(values), size=n, p=skewed_probs(rng, len(values)))
    pred = np.where(rng.random(n) < rng.uniform(0, 0.95), truth, noise)
    for codes in (truth, pred):
        codes[rng.random(n) < rng.uniform(0, 0.3)] = MISSING
        codes[rng.random(n) < rng.uniform(0, 0.3)] = ABSTAIN
    return labels, values, truth.astype(np.int64), pred.astype(np.int64)


def expected_classes(
    codes: np.ndarray, kind: str, values: list[float | None], ca_mode: str
) -> list[int | None]:
    """The documented cannot-assess rule, written out code by code."""
    scale = [i for i, v in enumerate(values) if v is not None]
    if ca_mode == "exclude":
        abstain: int | None = None
    elif ca_mode == "as_unmet" and kind != "nominal":
        lowest = min(scale, key=lambda i: (values[i], i))  # type: ignore[arg-type,return-value]
        abstain = scale.index(lowest)
    else:
        abstain = len(scale)
    result: list[int | None] = []
    for code in codes.tolist():
        if code == MISSING:
            result.append(None)
        elif code == ABSTAIN or values[code] is None:
            result.append(abstain)
        else:
            result.append(scale.index(code))
    return result


def reference_ordinal(t: np.ndarray, p: np.ndarray, values: list[float | None]) -> dict[str, float]:
    """Rank- and value-based ordinal figures on the pairs where both sides are options."""
    scale_values = [v for v in values if v is not None]
    k = len(scale_values)
    order = sorted(range(k), key=lambda i: (scale_values[i], i))
    rank = {cls: r for r, cls in enumerate(order)}
    keep = (t < k) & (p < k)
    tr = np.array([rank[c] for c in t[keep]], dtype=int)
    pr = np.array([rank[c] for c in p[keep]], dtype=int)
    tv = np.array([scale_values[c] for c in t[keep]], dtype=float)
    pv = np.array([scale_values[c] for c in p[keep]], dtype=float)
    nan = math.nan
    if tr.size == 0:
        return dict.fromkeys(ORDER_METRICS, nan)
    varied = tv.size >= 2 and np.ptp(tv) > 0 and np.ptp(pv) > 0
    return {
        "adjacent_accuracy": float(np.mean(np.abs(tr - pr) <= 1)),
        "linear_kappa": skm.cohen_kappa_score(tr, pr, labels=list(range(k)), weights="linear"),
        "quadratic_kappa": skm.cohen_kappa_score(
            tr, pr, labels=list(range(k)), weights="quadratic"
        ),
        "spearman": stats.spearmanr(pv, tv).statistic if varied else nan,
        "kendall": stats.kendalltau(pv, tv).statistic if varied else nan,
        "rmse": float(np.sqrt(np.mean((pv - tv) ** 2))),
        "mae": float(np.mean(np.abs(pv - tv))),
    }


def reference_figures(
    kind: str, t: np.ndarray, p: np.ndarray, n_classes: int, values: list[float | None]
) -> dict[str, float]:
    nan = math.nan
    labels = list(range(n_classes))
    result = {
        "accuracy": skm.accuracy_score(t, p),
        "cohen_kappa": skm.cohen_kappa_score(t, p, labels=labels),
    }
    if kind == "binary":
        precision, recall, f1, _ = skm.precision_recall_fscore_support(
            t, p, labels=labels, zero_division=nan
        )
        single = len(set(t.tolist())) == 1 or len(set(p.tolist())) == 1
        fp, tn = np.sum((t != 1) & (p == 1)), np.sum((t != 1) & (p != 1))
        result |= {
            "precision": precision[1],
            "recall": recall[1],
            "f1": f1[1],
            "mcc": nan if single else skm.matthews_corrcoef(t, p),
            "fpr": fp / (fp + tn) if fp + tn else nan,
            "fnr": 1 - recall[1] if not math.isnan(recall[1]) else nan,
        }
    if kind == "ordinal":
        result |= reference_ordinal(t, p, values)
    return result


def _check_case(seed: int, kind: str, ca_mode: str) -> None:
    labels, values, truth, pred = code_case(seed, kind)
    scale = build_scale(kind, labels, values, ca_mode)  # type: ignore[arg-type]
    comparison = compare_labels(truth, pred, scale)
    t_all = expected_classes(truth, kind, values, ca_mode)
    p_all = expected_classes(pred, kind, values, ca_mode)
    both = [(a, b) for a, b in zip(t_all, p_all, strict=True) if a is not None and b is not None]
    t = np.array([a for a, _ in both], dtype=int)
    p = np.array([b for _, b in both], dtype=int)
    assert comparison.n == len(both)
    if not both:
        assert all(isinstance(v, Undefined) for v in comparison.figures.values())
        assert comparison.confusion.sum() == 0
        return
    reference_cm = skm.confusion_matrix(t, p, labels=list(range(scale.n_classes)))
    np.testing.assert_array_equal(comparison.confusion, reference_cm)
    expected = reference_figures(kind, t, p, scale.n_classes, values)
    assert set(comparison.figures) == set(expected)
    for name, reference in expected.items():
        try:
            assert_figure(comparison.figures[name], float(reference))
        except AssertionError as error:
            raise AssertionError(f"{kind} {ca_mode} {name}: {error}") from error
    if kind == "nominal":
        precision, recall, f1, _ = skm.precision_recall_fscore_support(
            t, p, labels=list(range(scale.n_classes)), zero_division=math.nan
        )
        for k, label in enumerate(scale.labels):
            assert_figure(comparison.per_option[label]["precision"], float(precision[k]))
            assert_figure(comparison.per_option[label]["recall"], float(recall[k]))
            assert_figure(comparison.per_option[label]["f1"], float(f1[k]))


@pytest.mark.parametrize("ca_mode", CA_MODES)
@pytest.mark.parametrize("kind", KINDS)
def test_compare_labels_matches_references(kind: str, ca_mode: str) -> None:
    """300 datasets per kind (100 per ca_mode); the metrics alone see 240 in their own tests."""
    for_each_seed(lambda seed: _check_case(seed, kind, ca_mode), range(100))


def test_metric_keys_by_kind() -> None:
    truth = np.array([0, 1, 1, 0])
    ordinal = build_scale("ordinal", ["a", "b", "c"], [0.0, 0.5, 1.0])
    assert list(compare_labels(truth, truth, ordinal).figures) == [
        "accuracy",
        "cohen_kappa",
        "adjacent_accuracy",
        "linear_kappa",
        "quadratic_kappa",
        "spearman",
        "kendall",
        "rmse",
        "mae",
    ]
    binary = build_scale("binary", ["UNMET", "MET"], [0.0, 1.0])
    assert list(compare_labels(truth, truth, binary).figures) == [
        "accuracy",
        "precision",
        "recall",
        "f1",
        "cohen_kappa",
        "mcc",
        "fpr",
        "fnr",
    ]
    nominal = compare_labels(truth, truth, build_scale("nominal", ["x", "y"], [0.0, 1.0]))
    assert list(nominal.figures) == ["accuracy", "cohen_kappa"]
    assert list(nominal.per_option) == ["x", "y"]


def test_hand_worked_ca_modes_binary() -> None:
    truth = np.array([1, 0, ABSTAIN, 1, MISSING])
    pred = np.array([1, ABSTAIN, 0, 1, 1])
    scale = {m: build_scale("binary", ["UNMET", "MET"], [0.0, 1.0], m) for m in CA_MODES}
    excluded = compare_labels(truth, pred, scale["exclude"])
    assert excluded.n == 2 and excluded.figures["accuracy"] == 1.0
    as_unmet = compare_labels(truth, pred, scale["as_unmet"])
    assert as_unmet.n == 4 and as_unmet.figures["accuracy"] == 1.0  # abstain -> UNMET both
    as_category = compare_labels(truth, pred, scale["as_category"])
    assert as_category.labels == ("UNMET", "MET", "CANNOT_ASSESS")
    assert as_category.confusion.tolist() == [[0, 0, 1], [0, 2, 0], [1, 0, 0]]
    assert as_category.figures["accuracy"] == 0.5


def test_ordinal_as_unmet_uses_lowest_value_option_and_na_codes_abstain() -> None:
    labels = ["high", "NA", "low", "also low"]
    values: list[float | None] = [1.0, None, 0.0, 0.0]
    scale = build_scale("ordinal", labels, values, "as_unmet")
    assert scale.labels == ("high", "low", "also low")
    truth = np.array([2, 1, ABSTAIN])  # NA option index 1 reads as an abstention
    pred = np.array([ABSTAIN, 2, 0])
    comparison = compare_labels(truth, pred, scale)
    assert comparison.confusion.tolist() == [[0, 0, 0], [1, 2, 0], [0, 0, 0]]


def test_ordinal_as_category_leaves_abstain_out_of_order_metrics() -> None:
    scale = build_scale("ordinal", ["lo", "mid", "hi"], [0.0, 0.5, 1.0], "as_category")
    comparison = compare_labels(np.array([0, 1, 2, ABSTAIN]), np.array([0, 2, 2, 1]), scale)
    assert comparison.n == 4
    assert comparison.figures["accuracy"] == 0.5
    assert comparison.figures["adjacent_accuracy"] == 1.0  # on the three scaled pairs
    assert comparison.figures["mae"] == pytest.approx(0.5 / 3, abs=1e-12)


def test_degenerate_comparisons_are_undefined() -> None:
    scale = build_scale("binary", ["UNMET", "MET"], [0.0, 1.0])
    nothing = compare_labels(np.full(3, MISSING), np.array([1, 0, 1]), scale)
    assert nothing.n == 0
    assert all(isinstance(v, Undefined) for v in nothing.figures.values())
    one = compare_labels(np.array([1]), np.array([1]), scale)
    assert one.figures["accuracy"] == 1.0
    assert_undefined(one.figures["cohen_kappa"])
    assert_undefined(one.figures["mcc"])


def test_summary_pools_and_averages_over_criteria() -> None:
    binary = build_scale("binary", ["UNMET", "MET"], [0.0, 1.0])
    a = compare_labels(np.array([1, 0, 1, 0]), np.array([1, 0, 0, 0]), binary)  # 3/4
    b = compare_labels(np.array([1, 1]), np.array([1, 1]), binary)  # 2/2, kappa undefined
    summary = summarize([a, b])
    assert summary["micro_accuracy"] == pytest.approx(5 / 6, abs=1e-12)
    assert summary["macro_accuracy"] == pytest.approx((0.75 + 1.0) / 2, abs=1e-12)
    assert summary["mean_kappa"] == pytest.approx(0.5, abs=1e-12)  # only a's kappa
    assert_undefined(summarize([b])["mean_kappa"], "every criterion")
    assert_undefined(summarize([])["micro_accuracy"])


def test_invalid_inputs_are_errors() -> None:
    with pytest.raises(ValueError, match="ca_mode"):
        build_scale("binary", ["UNMET", "MET"], [0.0, 1.0], "as_met")
    scale = build_scale("binary", ["UNMET", "MET"], [0.0, 1.0])
    with pytest.raises(ValueError, match="codes"):
        compare_labels(np.array([2]), np.array([1]), scale)
    with pytest.raises(ValueError, match="two non-NA"):
        build_scale("ordinal", ["a", "NA"], [1.0, None])


def _check_resampled_statistics(seed: int, kind: str, ca_mode: str) -> None:
    """Each bootstrap replicate equals compare_labels on the resampled items."""
    labels, values, truth, pred = code_case(seed, kind)
    scale = build_scale(kind, labels, values, ca_mode)  # type: ignore[arg-type]
    statistics = label_statistics(truth, pred, scale)
    counts = resample_counts(np.random.default_rng(seed), 2, truth.size)
    weights = np.vstack([np.ones(truth.size), counts])
    for row in weights:
        picked = np.repeat(np.arange(truth.size), row.astype(int))
        figures = compare_labels(truth[picked], pred[picked], scale).figures
        for name, statistic in statistics.items():
            replicate = float(statistic.evaluate(row[None, :])[0])
            try:
                assert_figure(figures[name], replicate)
            except AssertionError as error:
                raise AssertionError(f"{kind} {ca_mode} {name}: {error}") from error


@pytest.mark.parametrize("ca_mode", CA_MODES)
@pytest.mark.parametrize("kind", KINDS)
def test_label_statistics_replicate_compare_labels(kind: str, ca_mode: str) -> None:
    for_each_seed(lambda seed: _check_resampled_statistics(seed, kind, ca_mode), range(100))
