"""What a person looks at first on the HTML pages, in a real headless Chromium: the verdict,
the items that disagree with ground truth, titles and toolbars that fit, the width used, code
in warnings, the raw score explained; the compare page's colours and verdict headline."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from html_support import DEMO_DATA, DEMO_RUBRIC, cli, ungated_demo
from playwright.sync_api import Browser, Page

from tests.support.browser import headless_chromium

# Every element under a root, through Bokeh's (open) shadow roots, that matches a selector.
DEEP_QUERY = """(root, selector) => {
  const found = [];
  const walk = (node) => {
    if (node.matches && node.matches(selector)) found.push(node);
    if (node.shadowRoot) walk(node.shadowRoot);
    for (const child of node.children || []) walk(child);
  };
  walk(root);
  return found.map((n) => {
    const r = n.getBoundingClientRect();
    const s = getComputedStyle(n);
    const shown = s.display !== 'none' && s.visibility !== 'hidden';
    return {visible: r.width > 0 && r.height > 0 && shown};
  });
}"""
BAR_COLORS = """() => {
  const bars = {};
  for (const doc of Bokeh.documents) for (const m of doc.all_models) {
    const data = m.data_source && m.data_source.data;
    if (data && data.label && data.value && data.color) {
      [...data.label].forEach((label, i) => { bars[label] = data.color[i]; });
    }
  }
  return bars;
}"""


def rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def is_red(color: str) -> bool:
    r, g, b = rgb(color)
    return r > g + 80 and r > b + 80


def is_green(color: str) -> bool:
    r, g, b = rgb(color)
    return g > r + 50 and g > b + 40


def is_grey(color: str) -> bool:
    r, g, b = rgb(color)
    return max(r, g, b) - min(r, g, b) < 30


def run_demo(out: Path, rubric: Path) -> Path:
    result = cli("run", rubric, DEMO_DATA, "--out", out, "--no-cache")
    assert result.exit_code in (0, 1), result.output
    return out


@pytest.fixture(scope="module")
def experiments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The shipped demo (its gate passes), the same with a gate it fails, and no gate."""
    tmp = tmp_path_factory.mktemp("polish")
    strict = tmp / "demo-strict.yaml"
    strict.write_text(DEMO_RUBRIC.read_text().replace("min: 0.3}", "min: 0.9}"))
    return {
        "demo": run_demo(tmp / "demo", DEMO_RUBRIC),
        "strict": run_demo(tmp / "strict", strict),
        "ungated": run_demo(tmp / "ungated", ungated_demo(tmp)),
    }


@pytest.fixture(scope="module")
def browser(experiments: dict[str, Path]) -> Iterator[Browser]:
    with headless_chromium() as browser:
        yield browser


def open_page(browser: Browser, path: Path, width: int = 1400, items: bool = True) -> Page:
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(path.as_uri())
    ready = "body[data-plots-ready]" + ("[data-items-ready]" if items else "")
    page.wait_for_selector(ready, timeout=30_000)
    assert errors == []
    return page


def report(directory: Path) -> dict[str, Any]:
    return dict(json.loads((directory / "report.json").read_text()))


def test_the_verdict_is_the_first_thing_on_the_page(
    browser: Browser, experiments: dict[str, Path]
) -> None:
    expected = {
        "demo": ("passed", "Gate PASSED: 2 of 2 checks", "✓ score.mean = 0.386 ≥ min 0.300"),
        "strict": (
            "failed",
            "Gate FAILED: 1 of 2 checks failed",
            "✗ score.mean = 0.386 < min 0.900",
        ),
        "ungated": ("none", "No gate", "The rubric sets no gate:"),
    }
    for name, (state, title, line) in expected.items():
        assert report(experiments[name])["score"]["mean"] == pytest.approx(0.386, abs=5e-4)
        page = open_page(browser, experiments[name] / "report.html")
        verdict = page.locator("#verdict")
        assert verdict.get_attribute("data-gate") == state
        assert page.inner_text("#verdict .verdict-title") == title
        assert line in verdict.inner_text()
        assert "Run completed: 48 of 48 items graded · 0 errored." in verdict.inner_text()
        # First under the experiment's name: above the banner, the facts and every section.
        top = verdict.bounding_box()
        assert top is not None
        for other in ("#simulated-banner", "dl.facts", "#scores"):
            box = page.locator(other).bounding_box()
            assert box is not None and box["y"] > top["y"] + top["height"] - 1, other
        assert top["y"] < 200
        page.close()


def test_items_that_disagree_with_ground_truth_are_marked_and_filterable(
    browser: Browser, experiments: dict[str, Path]
) -> None:
    truth = report(experiments["demo"])["ground_truth"]
    page = open_page(browser, experiments["demo"] / "report.html")
    assert "disagrees with ground truth" in page.inner_text("#disagree-note")
    marked_rows = set()
    for index, block in enumerate(truth["criteria"]):
        confusion = block["confusion"]
        off_diagonal = sum(
            n for i, row in enumerate(confusion) for j, n in enumerate(row) if i != j
        )
        column = page.locator(f"tr.item-row td:nth-child({5 + index})")
        marked = [c for c in column.all() if "disagree" in (c.get_attribute("class") or "")]
        assert len(marked) == off_diagonal, block["name"]
        for cell in marked:
            assert "≠" in cell.inner_text()
            assert (cell.get_attribute("title") or "").startswith("ground truth: ")
            marked_rows.add(cell.evaluate("c => c.parentElement.dataset.id"))
    assert 0 < len(marked_rows) < 48
    page.select_option("#status-filter", "gt")
    rows = {str(r.get_attribute("data-id")) for r in page.locator("tr.item-row").all()}
    assert rows == marked_rows
    energy = truth["criteria"][0]["confusion"]
    page.select_option("#criterion-filter", "0")
    assert page.locator("tr.item-row").count() == energy[0][1] + energy[1][0]
    page.close()


def test_plot_titles_and_toolbars_fit(browser: Browser, experiments: dict[str, Path]) -> None:
    for width in (1400, 1000):
        page = open_page(browser, experiments["demo"] / "report.html", width)
        figures = page.locator("figure.plot[data-plot]")
        assert figures.count() >= 10
        for figure in figures.all():
            caption = figure.locator("figcaption")
            assert caption.count() == 1, figure.get_attribute("data-plot")
            fits = caption.evaluate(
                "c => c.scrollWidth <= c.clientWidth && "
                "c.getBoundingClientRect().right <= "
                "c.parentElement.getBoundingClientRect().right + 1"
            )
            assert fits and caption.inner_text().strip(), figure.get_attribute("data-plot")
            overflow = figure.evaluate(DEEP_QUERY, ".bk-tool-overflow")
            assert not any(o["visible"] for o in overflow), figure.get_attribute("data-plot")
            buttons = figure.evaluate(DEEP_QUERY, ".bk-tool-icon")
            assert sum(b["visible"] for b in buttons) == 1  # save; reset did nothing
        page.close()


def test_confusion_titles_are_the_specs(browser: Browser, experiments: dict[str, Path]) -> None:
    page = open_page(browser, experiments["demo"] / "report.html")
    specs = json.loads(page.evaluate("document.getElementById('plot-specs').textContent"))
    for figure in page.locator("figure.plot[data-plot]").all():
        name = str(figure.get_attribute("data-plot"))
        assert figure.locator("figcaption").inner_text() == specs[name]["title"]
    page.close()


def test_the_page_uses_the_width_and_fits_a_narrow_window(
    browser: Browser, experiments: dict[str, Path]
) -> None:
    wide = open_page(browser, experiments["demo"] / "report.html", 1400)
    main = wide.locator("main").bounding_box()
    assert main is not None and main["width"] >= 1380
    grids = wide.locator(".plots").all()
    assert len(grids) >= 2
    for grid in grids:
        box = grid.bounding_box()
        figures = [f.bounding_box() for f in grid.locator("figure.plot").all()]
        assert box is not None and len(figures) >= 2
        first_row = [f for f in figures if f and abs(f["y"] - figures[0]["y"]) < 2]  # type: ignore[index]
        assert len(first_row) >= 3  # three plots side by side at 1400 px
        assert max(f["x"] + f["width"] for f in first_row) >= box["x"] + box["width"] - 4
    wide.close()
    narrow = open_page(browser, experiments["demo"] / "report.html", 1000)
    assert narrow.evaluate("document.documentElement.scrollWidth") <= 1000
    for figure in narrow.locator("figure.plot").all():
        box = figure.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 1000
    narrow.close()


def test_backticks_in_validate_warnings_are_code(
    browser: Browser, experiments: dict[str, Path]
) -> None:
    page = open_page(browser, experiments["demo"] / "report.html")
    warnings = page.locator("#validate ul.warnings li")
    assert warnings.count() == 3  # the shipped demo: one per single-sample judge
    for li in warnings.all():
        assert "`" not in li.inner_text()
        assert li.locator("code").all_inner_texts() == ["samples: 5"]
    page.close()


def test_the_raw_score_is_labelled_and_adds_up(
    browser: Browser, experiments: dict[str, Path]
) -> None:
    records = [json.loads(line) for line in (experiments["demo"] / "items.jsonl").open()]
    record = next(r for r in records if r["id"] == "q004")
    page = open_page(browser, experiments["demo"] / "report.html")
    page.fill("#search", "q004")
    page.click("tr.item-row[data-id=q004]")
    detail = page.locator("tr.detail-row[data-detail-for=q004]")
    facts = detail.locator("p.item-facts").inner_text()
    assert f"raw score {record['raw_score']:.3f} = Σ weight × value" in facts
    cells = detail.locator("tr.criterion-row td.contribution").all_inner_texts()
    assert len(cells) == 7
    total = sum(float(c.split("=")[-1]) for c in cells if c != "not scored")
    assert total == pytest.approx(record["raw_score"], abs=5e-3)
    page.close()


def test_the_compare_page_colours_and_verdict(browser: Browser, tmp_path: Path) -> None:
    from test_report_html_compare import COMPARE

    from autorubric_cli.report.html.compare_page import render_compare_html
    from autorubric_cli.report.models_compare import CompareResult

    compare = copy.deepcopy(COMPARE)
    penalty = {**compare["criteria"][0], "name": "harm", "weight": -15.0}
    compare["criteria"].append(penalty | {"base": 0.1, "new": 0.3, "diff": 0.2})
    compare["criteria"].append(penalty | {"name": "same", "diff": 1e-9})
    path = tmp_path / "compare.html"
    path.write_text(render_compare_html(CompareResult.model_validate(compare)))
    page = open_page(browser, path, items=False)
    bars = page.evaluate(BAR_COLORS)
    assert is_green(bars["improved"]) and is_red(bars["regressed"]) and is_grey(bars["unchanged"])
    assert is_red(bars["x"])  # the criterion whose MET rate fell
    assert is_red(bars["harm"])  # a penalty criterion met more often: worse for the score
    assert is_grey(bars["same"])
    for cls, check in (("improved", is_green), ("regressed", is_red)):
        cell = page.locator(f"#scores td.{cls}").first
        color = cell.evaluate("c => getComputedStyle(c).color")
        r, g, b = (int(v) for v in color[color.index("(") + 1 : -1].split(",")[:3])
        assert check(f"#{r:02x}{g:02x}{b:02x}"), cls
    verdict = page.locator("#verdict")
    assert verdict.get_attribute("data-gate") == "failed"
    assert page.inner_text("#verdict .verdict-title") == "Gate FAILED: 1 of 1 checks failed"
    assert "✗ score.diff = -0.030 < min -0.020" in verdict.inner_text()
    assert page.inner_text("#score-verdict") == (
        "NEW scores lower than BASE by -0.030 on average (95% CI -0.050 to -0.010); "
        "Wilcoxon p = 0.004: a significant difference at the 5% level."
    )
    top = verdict.bounding_box()
    table = page.locator("#scores").bounding_box()
    assert top is not None and table is not None and top["y"] < table["y"]
    page.close()
