"""`render_compare_html`: the docs/guides/compare.md comparison object as a page (no browser
here)."""

from __future__ import annotations

import copy
from typing import Any

from html_support import XSS, parse_text

from autorubric_cli.report.html.compare_page import render_compare_html
from autorubric_cli.report.models_compare import CompareResult

COMPARE: dict[str, Any] = {
    "base": {"experiment": "a", "path": "experiments/a"},
    "new": {"experiment": "b", "path": "experiments/b"},
    "warnings": [f"judges differ: {XSS}"],
    "items": {"paired": 100, "only_base": 2, "only_new": 1, "excluded": 3, "excluded_errored": 0},
    "errored": {"base": 0, "new": 0},
    "score": {
        "base_mean": 0.71,
        "new_mean": 0.68,
        "diff": -0.03,
        "ci95": [-0.05, -0.01],
        "p_value": 0.004,
        "p_value_sign": 0.01,
        "improved": 12,
        "regressed": 30,
        "unchanged": 58,
        "n": 100,
        "undefined": {},
    },
    "criteria": [
        {
            "name": "x",
            "kind": "binary",
            "weight": 1.0,
            "base": 0.8,
            "new": 0.7,
            "diff": -0.1,
            "test": "mcnemar_exact",
            "p_value": 0.01,
            "p_adjusted": 0.03,
            "transitions": {"MET->UNMET": 12, "UNMET->MET": 2},
            "distribution": {"base": {"MET": 80, "UNMET": 20}, "new": {"MET": 70, "UNMET": 30}},
            "undefined": {},
            "n": 100,
        },
        {
            "name": "tone",
            "kind": "nominal",
            "weight": 4.0,
            "base": None,
            "new": None,
            "diff": None,
            "test": "stuart_maxwell",
            "p_value": None,
            "p_adjusted": None,
            "transitions": {},
            "distribution": {"base": {}, "new": {}},
            "undefined": {"p_value": "singular", "p_adjusted": "singular"},
            "n": 100,
        },
    ],
    "judges": [{"id": "gpt", "base_mean": 0.7, "new_mean": 0.69, "diff": -0.01, "n": 100}],
    "moved": [
        {
            "id": f"q7{XSS}",
            "base": 1.0,
            "new": 0.25,
            "diff": -0.75,
            "flips": [{"criterion": "x", "base": "MET", "new": "UNMET"}],
        }
    ],
    "ca_mode": "exclude",
    "seed": 0,
    "gate": {
        "passed": False,
        "checks": [{"metric": "score.diff", "min": -0.02, "value": -0.03, "passed": False}],
    },
}


NO_PAIRS_COUNTS = ("improved", "regressed", "unchanged", "n")


def test_every_section_and_figure_of_the_comparison() -> None:
    text = render_compare_html(CompareResult.model_validate(COMPARE))
    page = parse_text(text)
    assert {"summary", "scores", "criteria", "judges", "moved", "gate", "warnings"} <= page.ids
    assert page.plots == ["items", "criteria"] and page.external == []
    specs = page.specs()
    assert specs["items"]["n"] == [12, 30, 58]
    assert specs["criteria"]["labels"] == ["x"] and specs["criteria"]["values"] == [-0.1]
    for shown in ("0.710", "0.680", "-0.030", "[-0.050, -0.010]", "0.004", "MET→UNMET 12"):
        assert shown in text
    assert "singular" in text and "FAILED" in text and "100 paired" in text
    assert XSS not in text and "judges differ: &lt;script&gt;" in text
    assert "q7&lt;script&gt;" in text and "-0.750" in text and "x: MET → UNMET" in text


def test_nothing_paired_has_no_plots_and_still_renders() -> None:
    empty = copy.deepcopy(COMPARE)
    empty["items"]["paired"] = 0
    empty["score"] = dict.fromkeys(COMPARE["score"]) | dict.fromkeys(NO_PAIRS_COUNTS, 0)
    empty["score"]["undefined"] = {"p_value": "no paired items"}
    empty["criteria"], empty["judges"], empty["gate"], empty["warnings"] = [], [], None, []
    empty["moved"] = []
    page = parse_text(render_compare_html(CompareResult.model_validate(empty)))
    assert page.plots == [] and sorted(page.empty_plots) == ["criteria", "items"]
    assert "gate" not in page.ids and "plot-specs" not in page.ids and "moved" not in page.ids
