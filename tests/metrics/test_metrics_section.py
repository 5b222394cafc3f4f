"""The report's ground-truth and agreement sections on a small hand-worked case."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from rich.console import Console

from autorubric_cli.core.json_model import to_json_dict
from autorubric_cli.metrics.codes import ABSTAIN, MISSING
from autorubric_cli.report import agreement_section as agreement_module
from autorubric_cli.report import metrics_section
from autorubric_cli.report.metrics_section import CriterionLabels
from autorubric_cli.report.models import AgreementSection, GroundTruthSection
from autorubric_cli.report.render_agreement import agreement_table
from autorubric_cli.report.render_metrics import ground_truth_tables

A, M = ABSTAIN, MISSING


def ground_truth_section(*args: Any, **kwargs: Any) -> dict[str, Any] | None:
    """The section's JSON form (the builder returns the typed block)."""
    section = metrics_section.ground_truth_section(*args, **kwargs)
    return None if section is None else to_json_dict(section)


def agreement_section(*args: Any, **kwargs: Any) -> dict[str, Any]:
    return to_json_dict(agreement_module.agreement_section(*args, **kwargs))


BINARY_KEYS = {"accuracy", "precision", "recall", "f1", "cohen_kappa", "mcc", "fpr", "fnr"}
ORDINAL_KEYS = {
    "accuracy",
    "cohen_kappa",
    "adjacent_accuracy",
    "linear_kappa",
    "quadratic_kappa",
    "spearman",
    "kendall",
    "rmse",
    "mae",
}
COMMON_KEYS = {"name", "kind", "n", "labels", "confusion", "ci95", "undefined"}


def _criterion(name, kind, labels, values, truth, ensemble, a, b) -> CriterionLabels:
    votes = np.column_stack([a, b]).astype(np.int64)
    return CriterionLabels(
        name=name,
        kind=kind,
        option_labels=labels,
        option_values=values,
        truth=np.array(truth, dtype=np.int64),
        predictions={"ensemble": np.array(ensemble), "a": votes[:, 0], "b": votes[:, 1]},
        judge_votes=votes,
        judge_ids=["a", "b"],
    )


def hand_case() -> list[CriterionLabels]:
    return [
        _criterion(
            "accurate",
            "binary",
            ["UNMET", "MET"],
            [0.0, 1.0],
            truth=[1, 1, 0, 0, 1, M],
            ensemble=[1, 0, 0, 0, 1, 1],
            a=[1, 0, 0, 1, 1, 1],
            b=[1, 1, 0, 0, A, 0],
        ),
        _criterion(
            "quality",
            "ordinal",
            ["low", "mid", "high", "NA"],
            [0.0, 0.5, 1.0, None],
            truth=[0, 1, 2, 2, 3, 0],
            ensemble=[0, 1, 1, 2, 1, A],
            a=[0, 1, 1, 2, 1, 0],
            b=[0, 2, 1, 2, M, A],
        ),
        _criterion(
            "topic",
            "nominal",
            ["x", "y", "z"],
            [0.0, 0.5, 1.0],
            truth=[0, 1, 2, 0, 1, 2],
            ensemble=[0, 1, 2, 0, 2, 2],
            a=[0, 1, 2, 1, 2, 2],
            b=[0, 1, 2, 0, 1, M],
        ),
    ]


TRUTH_SCORES = np.array([1.0, 0.5, 0.0, 0.25, np.nan, 0.75])
PREDICTED = {
    "ensemble": np.array([0.9, 0.4, 0.1, 0.3, 0.5, np.nan]),
    "a": np.array([0.8, 0.6, 0.2, 0.2, 0.4, 0.7]),
}


def _assert_plain_json(value: object, path: str = "$") -> None:
    """Only dict/list/str/int/float/bool/None, no numpy types, no NaN or infinity."""
    if isinstance(value, dict):
        for key, item in value.items():
            assert type(key) is str, path
            _assert_plain_json(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _assert_plain_json(item, f"{path}[{i}]")
    else:
        assert value is None or type(value) in (str, int, float, bool), (path, type(value))
        if type(value) is float:
            assert math.isfinite(value), path


def test_ground_truth_section_shape_and_hand_values() -> None:
    section = ground_truth_section(hand_case(), TRUTH_SCORES, PREDICTED, seed=3, bootstrap=200)
    assert section is not None
    _assert_plain_json(section)
    json.dumps(section, allow_nan=False)
    assert list(section) == ["ca_mode", "criteria", "score", "overall", "judges"]
    assert section["ca_mode"] == "exclude"
    assert list(section["judges"]) == ["a", "b"]
    binary, ordinal, nominal = section["criteria"]
    assert set(binary) == COMMON_KEYS | BINARY_KEYS
    assert set(ordinal) == COMMON_KEYS | ORDINAL_KEYS
    assert set(nominal) == COMMON_KEYS | {"accuracy", "cohen_kappa", "per_option"}
    # binary, 5 labelled pairs: TP 2, FN 1, TN 2, FP 0
    assert binary["n"] == 5
    assert binary["confusion"] == [[2, 0], [1, 2]] and binary["labels"] == ["UNMET", "MET"]
    assert binary["accuracy"] == pytest.approx(0.8, abs=1e-12)
    assert binary["precision"] == pytest.approx(1.0, abs=1e-12)
    assert binary["recall"] == pytest.approx(2 / 3, abs=1e-12)
    assert binary["cohen_kappa"] == pytest.approx(0.32 / 0.52, abs=1e-12)
    assert binary["fpr"] == 0.0 and binary["fnr"] == pytest.approx(1 / 3, abs=1e-12)
    # ordinal: the NA truth and the abstaining ensemble vote drop two items
    assert ordinal["n"] == 4 and ordinal["labels"] == ["low", "mid", "high"]
    assert ordinal["accuracy"] == 0.75 and ordinal["adjacent_accuracy"] == 1.0
    assert nominal["per_option"]["z"] == {
        "precision": pytest.approx(2 / 3),
        "recall": 1.0,
        "f1": pytest.approx(0.8),
        "support": 2,
    }
    for block in (binary, ordinal, nominal):
        for metric, interval in block["ci95"].items():
            if interval is not None:
                assert interval[0] <= block[metric] <= interval[1], metric
    assert set(binary["ci95"]) == {"accuracy", "cohen_kappa"}
    assert set(ordinal["ci95"]) == {
        "accuracy",
        "cohen_kappa",
        "linear_kappa",
        "quadratic_kappa",
        "rmse",
    }
    score = section["score"]
    assert score["n"] == 4 and set(score["ci95"]) == {"pearson", "rmse"}
    assert score["bias"] == pytest.approx(np.mean([-0.1, -0.1, 0.1, 0.05]), abs=1e-12)
    overall = section["overall"]
    assert overall["micro_accuracy"] == pytest.approx((4 + 3 + 5) / (5 + 4 + 6), abs=1e-12)
    assert overall["macro_accuracy"] == pytest.approx((0.8 + 0.75 + 5 / 6) / 3, abs=1e-12)


def test_judge_blocks_and_reasons_for_undefined_figures() -> None:
    section = ground_truth_section(hand_case(), TRUTH_SCORES, PREDICTED, bootstrap=100)
    assert section is not None
    judge_b = section["judges"]["b"]
    assert list(judge_b) == ["criteria", "score", "overall"]
    assert judge_b["score"]["n"] == 0  # no scores given for judge b
    assert judge_b["score"]["pearson"] is None
    assert judge_b["score"]["undefined"]["pearson"] == "needs at least two items"
    assert judge_b["score"]["ci95"]["pearson"] is None
    binary_b = judge_b["criteria"][0]
    assert binary_b["accuracy"] == 1.0  # b's abstention is excluded
    ordinal_b = judge_b["criteria"][1]
    assert ordinal_b["n"] == 4
    assert ordinal_b["undefined"] == {}
    everything_none = [
        (key, block)
        for block in section["criteria"] + judge_b["criteria"]
        for key, value in block.items()
        if value is None and key not in block["undefined"]
    ]
    assert everything_none == []


def test_ca_modes_change_the_compared_pairs() -> None:
    exclude = ground_truth_section(hand_case(), TRUTH_SCORES, PREDICTED, bootstrap=0)
    as_category = ground_truth_section(
        hand_case(), TRUTH_SCORES, PREDICTED, ca_mode="as_category", bootstrap=0
    )
    assert exclude is not None and as_category is not None
    assert exclude["criteria"][1]["n"] == 4 and as_category["criteria"][1]["n"] == 6
    assert as_category["criteria"][1]["labels"] == ["low", "mid", "high", "NA"]
    assert exclude["criteria"][0]["ci95"] == {}
    with pytest.raises(ValueError, match="ca_mode"):
        ground_truth_section(hand_case(), TRUTH_SCORES, PREDICTED, ca_mode="skip")


def test_section_is_deterministic_under_seed() -> None:
    one = ground_truth_section(hand_case(), TRUTH_SCORES, PREDICTED, seed=5, bootstrap=300)
    two = ground_truth_section(hand_case(), TRUTH_SCORES, PREDICTED, seed=5, bootstrap=300)
    other = ground_truth_section(hand_case(), TRUTH_SCORES, PREDICTED, seed=6, bootstrap=300)
    assert one == two
    assert one != other


def test_no_truth_labels_gives_none() -> None:
    labels = hand_case()
    for criterion in labels:
        criterion.truth = np.full(6, MISSING)
    assert ground_truth_section(labels, np.full(6, np.nan), PREDICTED) is None


def test_agreement_section_hand_values() -> None:
    section = agreement_section(hand_case())
    _assert_plain_json(section)
    binary = section["criteria"][0]
    assert list(binary) == [
        "name",
        "kind",
        "n_items",
        "percent_agreement",
        "pairwise_cohen_kappa",
        "fleiss_kappa",
        "scotts_pi",
        "gwet_ac1",
        "krippendorff_alpha",
        "undefined",
    ]
    assert binary["n_items"] == 5
    assert binary["percent_agreement"] == pytest.approx(0.4, abs=1e-12)
    assert binary["pairwise_cohen_kappa"] == {"a|b": pytest.approx(-0.08 / 0.52, abs=1e-12)}
    # two raters, complete items: Scott's pi, Fleiss' kappa both use pooled shares 1/2
    assert binary["scotts_pi"] == pytest.approx((0.4 - 0.5) / 0.5, abs=1e-12)
    assert binary["fleiss_kappa"] == pytest.approx(binary["scotts_pi"], abs=1e-12)
    ordinal = section["criteria"][1]
    assert ordinal["n_items"] == 4  # b's missing and abstaining votes are missing ratings
    assert section["mean_agreement"] == pytest.approx(
        np.mean([c["percent_agreement"] for c in section["criteria"]]), abs=1e-12
    )


def test_agreement_needs_two_judges() -> None:
    labels = hand_case()
    for criterion in labels:
        criterion.judge_votes = criterion.judge_votes[:, :1]
        criterion.judge_ids = ["a"]
    section = agreement_section(labels)
    assert section["mean_agreement"] is None
    for block in section["criteria"]:
        for key in ("percent_agreement", "fleiss_kappa", "scotts_pi", "gwet_ac1"):
            assert block[key] is None
            assert block["undefined"][key] == "needs at least two judges"
        assert block["krippendorff_alpha"] is None
        assert block["pairwise_cohen_kappa"] == {}


def _render(table: object) -> str:
    console = Console(width=240, record=True)
    console.print(table)
    return console.export_text()


def test_tables_render_figures_intervals_and_na() -> None:
    section = ground_truth_section(hand_case(), TRUTH_SCORES, PREDICTED, seed=1, bootstrap=200)
    assert section is not None
    ensemble, judges = ground_truth_tables(GroundTruthSection.model_validate(section))
    text = _render(ensemble)
    assert "accurate" in text and "0.800 [" in text and "quality" in text
    judges_text = _render(judges)
    for judge in ("ensemble", "a", "b"):
        assert f"│ {judge} " in judges_text
    assert "n/a" in judges_text  # judge b has no scores
    typed = AgreementSection.model_validate(agreement_section(hand_case()))
    agreement = _render(agreement_table(typed))
    assert "a|b -0.154" in agreement


def test_degenerate_single_item_section() -> None:
    one = _criterion("only", "binary", ["UNMET", "MET"], [0.0, 1.0], [1], [1], [1], [A])
    section = ground_truth_section([one], np.array([1.0]), {"ensemble": np.array([1.0])})
    assert section is not None
    _assert_plain_json(section)
    block = section["criteria"][0]
    assert block["n"] == 1 and block["accuracy"] == 1.0
    for key in ("cohen_kappa", "mcc", "fpr"):
        assert block[key] is None and block["undefined"][key]
    assert block["ci95"]["cohen_kappa"] is None
    assert section["score"]["pearson"] is None and section["score"]["rmse"] == 0.0
    assert section["overall"]["mean_kappa"] is None
    assert section["overall"]["undefined"]["mean_kappa"] == "undefined for every criterion"
    agreement = agreement_section([one])["criteria"][0]
    assert agreement["n_items"] == 0  # b abstained: one rating only
    assert agreement["undefined"]["fleiss_kappa"] == "no item has at least two ratings"


def test_mismatched_lengths_are_an_error() -> None:
    with pytest.raises(ValueError, match="accurate.truth has 6 items, expected 5"):
        ground_truth_section(hand_case(), TRUTH_SCORES[:5], {})
