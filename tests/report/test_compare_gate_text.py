"""The compare page's gate text: its checks come from `--max-drop` / `--fail-on-regression`,
never from the rubric's `gate:` (which checks each run in its own report)."""

from __future__ import annotations

import copy
import html
import re

from test_report_html_compare import COMPARE

from autorubric_cli.report.html.compare_page import render_compare_html
from autorubric_cli.report.models_compare import CompareResult


def verdict_text(compare: dict[str, object]) -> str:
    page = render_compare_html(CompareResult.model_validate(compare))
    section = re.search(r'<section id="verdict".*?</section>', page, re.DOTALL)
    assert section is not None
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", section.group())).split())


def test_no_compare_gate_names_the_flags_not_the_rubric() -> None:
    ungated = copy.deepcopy(COMPARE)
    ungated["gate"] = None
    text = verdict_text(ungated)
    assert "No gate" in text
    assert "only with --max-drop X or --fail-on-regression" in text
    assert "The rubric sets no" not in text


def test_a_flag_gate_says_where_its_checks_come_from() -> None:
    gated = copy.deepcopy(COMPARE)
    gated["gate"] = {
        "passed": False,
        "checks": [
            {"metric": "score.diff", "min": -0.02, "value": -0.03, "passed": False},
            {
                "metric": "regression",
                "alpha": 0.05,
                "diff": -0.03,
                "value": 0.001,
                "passed": False,
            },
        ],
    }
    text = verdict_text(gated)
    assert "Gate FAILED: 2 of 2 checks failed" in text
    assert "Checks from --fail-on-regression and --max-drop" in text
    assert "the rubric's gate: checks each run in its own report" in text
