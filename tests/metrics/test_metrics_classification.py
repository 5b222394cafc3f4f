"""Confusion-matrix metrics against scikit-learn on seeded random datasets."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from metrics_cases import assert_figure, assert_undefined, for_each_seed, label_case
from sklearn import metrics as skm

from autorubric_cli.metrics import classification as cls


def _binary(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    case = label_case(seed, max_classes=2)
    return case.truth, case.pred, cls.confusion_matrix(case.truth, case.pred, 2)


@pytest.fixture(autouse=True)
def _quiet_sklearn():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_confusion_matrix_matches_sklearn() -> None:
    def check(seed: int) -> None:
        case = label_case(seed)
        ours = cls.confusion_matrix(case.truth, case.pred, case.n_classes)
        reference = skm.confusion_matrix(case.truth, case.pred, labels=list(range(case.n_classes)))
        np.testing.assert_array_equal(ours, reference)

    for_each_seed(check)


def test_binary_metrics_match_sklearn() -> None:
    def check(seed: int) -> None:
        truth, pred, cm = _binary(seed)
        nan = np.nan
        kw = {"labels": [0, 1], "pos_label": 1, "zero_division": nan}
        assert_figure(cls.accuracy(cm), skm.accuracy_score(truth, pred))
        assert_figure(cls.precision(cm), skm.precision_score(truth, pred, **kw))
        assert_figure(cls.recall(cm), skm.recall_score(truth, pred, **kw))
        assert_figure(cls.f1(cm), skm.f1_score(truth, pred, **kw))
        assert_figure(cls.cohen_kappa(cm), skm.cohen_kappa_score(truth, pred, labels=[0, 1]))
        tn, fp, fn, tp = skm.confusion_matrix(truth, pred, labels=[0, 1]).ravel()
        assert_figure(cls.false_positive_rate(cm), fp / (fp + tn) if fp + tn else nan)
        assert_figure(cls.false_negative_rate(cm), fn / (fn + tp) if fn + tp else nan)

    for_each_seed(check)


def test_mcc_matches_sklearn_and_is_undefined_for_a_single_class_side() -> None:
    def check(seed: int) -> None:
        case = label_case(seed)
        cm = cls.confusion_matrix(case.truth, case.pred, case.n_classes)
        single_class = len(set(case.truth)) == 1 or len(set(case.pred)) == 1
        reference = skm.matthews_corrcoef(case.truth, case.pred)
        # scikit-learn reports 0.0 where MCC has a zero denominator; we report Undefined.
        assert_figure(cls.matthews_corrcoef(cm), np.nan if single_class else reference)

    for_each_seed(check)


@pytest.mark.parametrize("weights", ["none", "linear", "quadratic"])
def test_kappas_match_sklearn(weights: cls.KappaWeights) -> None:
    def check(seed: int) -> None:
        case = label_case(seed)
        cm = cls.confusion_matrix(case.truth, case.pred, case.n_classes)
        reference = skm.cohen_kappa_score(
            case.truth,
            case.pred,
            labels=list(range(case.n_classes)),
            weights=None if weights == "none" else weights,
        )
        assert_figure(cls.cohen_kappa(cm, weights), reference)

    for_each_seed(check)


def test_per_class_scores_match_sklearn() -> None:
    def check(seed: int) -> None:
        case = label_case(seed)
        cm = cls.confusion_matrix(case.truth, case.pred, case.n_classes)
        precision, recall, f1, _ = skm.precision_recall_fscore_support(
            case.truth, case.pred, labels=list(range(case.n_classes)), zero_division=np.nan
        )
        for k, scores in enumerate(cls.per_class_scores(cm)):
            assert_figure(scores["precision"], precision[k])
            assert_figure(scores["recall"], recall[k])
            assert_figure(scores["f1"], f1[k])

    for_each_seed(check)


def test_one_vs_rest_positive_metrics_in_three_classes() -> None:
    """Binary with an abstain class: MET against UNMET and CANNOT_ASSESS together."""

    def check(seed: int) -> None:
        case = label_case(seed, max_classes=3)
        cm = cls.confusion_matrix(case.truth, case.pred, case.n_classes)
        truth_met, pred_met = case.truth == 1, case.pred == 1
        tp = np.sum(truth_met & pred_met)
        fp = np.sum(~truth_met & pred_met)
        fn = np.sum(truth_met & ~pred_met)
        tn = np.sum(~truth_met & ~pred_met)
        assert_figure(cls.precision(cm), tp / (tp + fp) if tp + fp else np.nan)
        assert_figure(cls.false_positive_rate(cm), fp / (fp + tn) if fp + tn else np.nan)
        assert_figure(cls.false_negative_rate(cm), fn / (fn + tp) if fn + tp else np.nan)

    for_each_seed(check)


def test_hand_worked_binary_case() -> None:
    # truth MET MET MET UNMET UNMET UNMET; pred MET MET UNMET MET UNMET UNMET
    cm = cls.confusion_matrix(np.array([1, 1, 1, 0, 0, 0]), np.array([1, 1, 0, 1, 0, 0]), 2)
    assert cm.tolist() == [[2, 1], [1, 2]]
    assert cls.accuracy(cm) == pytest.approx(4 / 6, abs=1e-12)
    assert cls.precision(cm) == pytest.approx(2 / 3, abs=1e-12)
    assert cls.recall(cm) == pytest.approx(2 / 3, abs=1e-12)
    assert cls.cohen_kappa(cm) == pytest.approx(1 / 3, abs=1e-12)  # po 2/3, pe 1/2
    assert cls.matthews_corrcoef(cm) == pytest.approx(1 / 3, abs=1e-12)
    assert cls.false_positive_rate(cm) == pytest.approx(1 / 3, abs=1e-12)


def test_degenerate_inputs_are_undefined_with_reasons() -> None:
    empty = cls.confusion_matrix(np.array([], dtype=np.int64), np.array([], dtype=np.int64), 2)
    for value in (cls.accuracy(empty), cls.cohen_kappa(empty), cls.matthews_corrcoef(empty)):
        assert_undefined(value, "no compared items")
    only_met = cls.confusion_matrix(np.array([1, 1, 1]), np.array([1, 1, 1]), 2)
    assert_undefined(cls.cohen_kappa(only_met), "one and the same class")
    assert_undefined(cls.matthews_corrcoef(only_met), "single class")
    assert_undefined(cls.false_positive_rate(only_met), "no negatives")
    only_unmet = cls.confusion_matrix(np.array([0, 0]), np.array([0, 0]), 2)
    assert_undefined(cls.precision(only_unmet), "no predicted positives")
    assert_undefined(cls.recall(only_unmet), "no positives")
    assert_undefined(cls.f1(only_unmet), "no positives")
    assert_undefined(cls.false_negative_rate(only_unmet), "no positives")
    one = cls.confusion_matrix(np.array([1]), np.array([0]), 2)
    assert cls.accuracy(one) == 0.0
    assert_undefined(cls.cohen_kappa(cls.confusion_matrix(np.array([1]), np.array([1]), 2)))


def test_figures_are_plain_floats() -> None:
    cm = cls.confusion_matrix(np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0]), 2)
    for value in (cls.accuracy(cm), cls.cohen_kappa(cm), cls.matthews_corrcoef(cm)):
        assert type(value) is float
