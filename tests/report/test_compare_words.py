"""A comparison says one thing (docs/guides/compare.md, "What it says"): the finding of the test
it rests on, then what that rests on, and the smallest detectable difference only when the
difference is not significant, with the same words in the table, Markdown, JUnit and HTML.
Never "significant" and "too few items to tell" together, never "NEW is better" for a
difference that is not significant."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from stats_support import clustered_data, invoke, rubric

from autorubric_cli.report.compare_words import finding, power_advice
from autorubric_cli.report.gate_text import check_sentence
from autorubric_cli.report.models_compare import (
    ClusteredComparison,
    RegressionCheck,
    ScoreComparison,
)
from tests.support.browser import headless_chromium

KEY = "metadata.doc"
FLAGS = {"independent": [], "clustered": ["--cluster", KEY]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Seed 42 against seed 7 is significant yet below mde80 (the case that once said both);
    against seed 9 it is not significant."""
    tmp = tmp_path_factory.mktemp("words")
    data, plain = clustered_data(tmp), rubric(tmp)
    out = {}
    for seed in (42, 7, 9):
        out[str(seed)] = tmp / f"s{seed}"
        code, _, err = invoke("run", plain, data, "--out", out[str(seed)], "--seed", seed)
        assert code == 0, err
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with headless_chromium() as chromium:
        yield chromium


def outputs(runs: dict[str, Path], new: str, flags: list[str], browser: object) -> dict[str, str]:
    """The comparison as each format shows it (the HTML page read in the browser)."""
    base = runs["42"]
    shown = {}
    for fmt in ("table", "markdown", "junit"):
        code, stdout, err = invoke("compare", base, runs[new], "--format", fmt, *flags)
        assert code == 0, err
        shown[fmt] = " ".join(stdout.replace("**", "").replace("> ", "").split())
    page_path = runs[new].parent / f"compare-{new}-{len(flags)}.html"
    code, _, err = invoke("compare", base, runs[new], "-f", "html", "-o", page_path, *flags)
    assert code == 0, err
    page = browser.new_page()  # type: ignore[attr-defined]
    page.goto(page_path.as_uri())
    page.wait_for_selector("body[data-plots-ready]", timeout=30_000)
    shown["html"] = " ".join(page.inner_text("#summary").split())
    page.close()
    assert "`" not in shown["html"]  # `code` is shown as code, not as backticks
    return {fmt: text.replace("`", "") for fmt, text in shown.items()}


def score_of(runs: dict[str, Path], new: str, flags: list[str]) -> ScoreComparison:
    _, stdout, _ = invoke("compare", runs["42"], runs[new], "--format", "json", *flags)
    return ScoreComparison.model_validate(json.loads(stdout)["score"])


@pytest.mark.parametrize("flags", FLAGS.values(), ids=FLAGS.keys())
def test_a_significant_difference_is_never_too_few_items_to_tell(
    runs: dict[str, Path], flags: list[str], browser: object
) -> None:
    score = score_of(runs, "7", flags)
    assert score.below_mde80  # the observed difference is below mde80, and yet significant
    said = finding(score).replace("`", "")
    assert "a significant difference at the 5% level" in said
    for fmt, text in outputs(runs, "7", flags, browser).items():
        assert said in text, fmt  # one wording, defined once
        assert "too few items to tell" not in text, fmt
        assert "mde80" not in text and "80% power" not in text, fmt


@pytest.mark.parametrize("flags", FLAGS.values(), ids=FLAGS.keys())
def test_a_difference_that_is_not_significant_says_what_could_be_detected(
    runs: dict[str, Path], flags: list[str], browser: object
) -> None:
    score = score_of(runs, "9", flags)
    said, advice = finding(score), power_advice(score)
    assert "not significant at the 5% level" in said and advice is not None
    advice = advice.replace("`", "")
    mde = score.clustered.mde80 if score.clustered is not None else score.mde80
    assert f"below {mde:.4f}" in advice and advice.startswith("too few items to tell")
    for fmt, text in outputs(runs, "9", flags, browser).items():
        assert said in text and advice in text, fmt
        assert "is better" not in text and "is worse" not in text, fmt


def score(diff: float, p: float | None, **more: object) -> ScoreComparison:
    fields: dict[str, object] = {
        **dict(base_mean=0.5, new_mean=0.5 + diff, diff=diff, ci95=[diff - 0.1, diff + 0.1]),
        **dict(p_value=p, p_value_sign=p, improved=1, regressed=1, unchanged=1, n=3),
        **dict(undefined={}, se_diff=0.05, mde80=0.14, below_mde80=abs(diff) < 0.14),
    }
    return ScoreComparison.model_validate(fields | more)


def test_the_finding_follows_the_test_the_comparison_rests_on() -> None:
    assert finding(score(0.31, 0.31)).endswith("not significant at the 5% level (could be chance).")
    assert "NEW scores higher than BASE by +0.310" in finding(score(0.31, 0.31))
    assert finding(score(0.0, None, undefined={"p_value": "all differences are zero"})) == (
        "NEW scores the same as BASE on average (95% CI -0.100 to +0.100); "
        "no p-value: all differences are zero."
    )
    strict = score(-0.2, 0.03, alpha=0.01)
    assert finding(strict).endswith(
        "Wilcoxon p = 0.030: not significant at alpha 0.01 (could be chance)."
    )
    clustered = ClusteredComparison(
        key=KEY, clusters=12, se=0.01, ci95=[-0.22, -0.18], p_value=0.2, mde80=0.3
    )
    # Wilcoxon says significant, the clustered test (the one the gate uses) does not
    said = finding(score(-0.2, 0.001, clustered=clustered, below_mde80=True))
    assert said.endswith("clustered p = 0.200: not significant at the 5% level (could be chance).")
    assert "(95% CI -0.220 to -0.180)" in said
    advice = power_advice(score(-0.2, 0.001, clustered=clustered, below_mde80=True))
    assert advice is not None and "below 0.3000" in advice and "on 12 clusters" in advice
    assert power_advice(score(0.2, 0.001, below_mde80=True)) is None  # significant
    # no test, nothing to size: never "not significant, though it detects 0.0000"
    same = score(0.0, None, undefined={"p_value": "all differences are zero"}, se_diff=0.0)
    assert power_advice(same.model_copy(update={"mde80": 0.0, "below_mde80": False})) is None


def test_the_regression_check_names_the_p_value_it_used() -> None:
    check = RegressionCheck(
        metric="score.regression", alpha=0.05, diff=-0.1, value=0.01, passed=False, test="clustered"
    )
    assert "clustered p = 0.010" in check_sentence(check)
    wilcoxon = check.model_copy(update={"test": "wilcoxon"})
    assert "Wilcoxon p = 0.010" in check_sentence(wilcoxon)
