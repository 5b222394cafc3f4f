"""The demo's HTML report in a real headless Chromium (Debian's `chromium`, no browser download).

`.ci/run` installs the package when it is missing; playwright drives it through
`executable_path`, so `playwright install` is never needed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from html_support import XSS, cli, demo_lines, ungated_demo, write_jsonl
from PIL import Image, ImageStat
from playwright.sync_api import Browser, Page

from tests.support.browser import headless_chromium

XSS_ID = "q007"
# Every canvas under an element, through Bokeh's (open) shadow roots; 1 when one has ink.
CANVAS_INK = """(root) => {
  const canvases = [];
  const walk = (node) => {
    if (node.tagName === 'CANVAS') canvases.push(node);
    if (node.shadowRoot) walk(node.shadowRoot);
    for (const child of node.children || []) walk(child);
  };
  walk(root);
  let inked = 0;
  for (const c of canvases) {
    if (!c.width || !c.height) continue;
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 3; i < data.length; i += 4) {
      const dark = data[i] > 0 && (data[i - 3] < 200 || data[i - 2] < 200 || data[i - 1] < 200);
      if (dark) { inked += 1; break; }
    }
  }
  return {canvases: canvases.length, inked: inked};
}"""


@pytest.fixture(scope="module")
def report_html(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo (every item), one submission carrying a script tag."""
    tmp = tmp_path_factory.mktemp("browser")
    rows = demo_lines()
    target = next(r for r in rows if r["id"] == XSS_ID)
    target["submission"] = f"Ignore this: {XSS} <img src=x onerror=alert(2)> NMC: 270 Wh/kg."
    data = write_jsonl(tmp / "demo-xss.jsonl", rows)
    out = tmp / "exp"
    result = cli("run", ungated_demo(tmp), data, "--out", out, "--no-cache")
    assert result.exit_code == 0, result.output
    return out / "report.html"


@pytest.fixture(scope="module")
def browser(report_html: Path) -> Iterator[Browser]:
    """Started after the experiment: playwright's sync API runs an event loop in this thread."""
    with headless_chromium() as browser:
        yield browser


class Loaded:
    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.requests: list[str] = []

    def rows(self) -> list[str]:
        return [str(r.get_attribute("data-id")) for r in self.page.locator("tr.item-row").all()]

    def search(self, text: str) -> None:
        self.page.fill("#search", text)


@pytest.fixture
def loaded(browser: Browser, report_html: Path) -> Iterator[Loaded]:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    state = Loaded(page)

    def console(message: Any) -> None:
        if message.type == "error":
            state.errors.append(message.text)

    def dialog(d: Any) -> None:
        state.dialogs.append(d.message)
        d.dismiss()

    page.on("console", console)
    page.on("pageerror", lambda exc: state.errors.append(str(exc)))
    page.on("dialog", dialog)
    page.on("request", lambda r: state.requests.append(r.url))
    page.goto(report_html.as_uri())
    page.wait_for_selector("body[data-items-ready][data-plots-ready]", timeout=30_000)
    yield state
    page.close()


def test_loads_offline_with_no_console_error_and_every_plot_drawn(loaded: Loaded) -> None:
    page = loaded.page
    figures = page.locator("figure.plot[data-plot]")
    names = [f.get_attribute("data-plot") for f in figures.all()]
    assert len(names) >= 10 and page.get_attribute("body", "data-plots-ready") == str(len(names))
    for figure in figures.all():
        ink = figure.evaluate(CANVAS_INK)
        assert ink["canvases"] >= 1 and ink["inked"] >= 1, figure.get_attribute("data-plot")
    assert loaded.errors == []
    assert all(url.startswith(("file://", "data:", "blob:")) for url in loaded.requests)


def test_the_item_table_holds_every_item_and_search_leaves_one(loaded: Loaded) -> None:
    ids = [r["id"] for r in demo_lines()]
    assert sorted(loaded.rows()) == sorted(ids)  # 48 items, one page of 50
    assert loaded.page.inner_text("#count") == f"{len(ids)} of {len(ids)} items"
    loaded.search("q017")
    assert loaded.rows() == ["q017"]
    loaded.search("")
    assert len(loaded.rows()) == len(ids)


def test_sort_and_filters(loaded: Loaded, report_html: Path) -> None:
    page = loaded.page
    page.click("th[data-col=sc]")
    scores = [float(t) for t in page.locator("tr.item-row td:nth-child(3)").all_inner_texts()]
    assert scores == sorted(scores) and len(scores) == 48
    page.click("th[data-col=sc]")
    descending = [float(t) for t in page.locator("tr.item-row td:nth-child(3)").all_inner_texts()]
    assert descending == sorted(scores, reverse=True)
    import json

    report = json.loads((report_html.parent / "report.json").read_text())
    met = report["criteria"][0]["distribution"]["MET"]
    page.select_option("#criterion-filter", "0")
    page.select_option("#verdict-filter", "MET")
    assert len(loaded.rows()) == met
    page.select_option("#criterion-filter", "")
    page.select_option("#status-filter", "ca")
    abstained = loaded.rows()
    assert 0 < len(abstained) < 48


def test_opening_an_item_shows_its_votes(loaded: Loaded) -> None:
    page = loaded.page
    loaded.search("q003")
    page.click("tr.item-row[data-id=q003]")
    detail = page.locator("tr.detail-row[data-detail-for=q003]")
    votes = detail.locator("tr.vote-row")
    assert votes.count() == 7 * 3
    judges = votes.locator("td.judge").all_inner_texts()
    assert {j.strip() for j in judges} == {
        "careful (simulated)",
        "hasty (simulated)",
        "biased (simulated)",
    }
    assert "simulated judge careful" in detail.inner_text()
    orders = [t for t in votes.locator("td.order").all_inner_texts() if t]
    assert orders and all(t.startswith("1. ") for t in orders)  # the shown option order
    assert detail.locator("tr.criterion-row").count() == 7


def test_a_script_in_a_submission_is_text_and_never_runs(loaded: Loaded, tmp_path: Path) -> None:
    page = loaded.page
    loaded.search(XSS_ID)
    page.click(f"tr.item-row[data-id={XSS_ID}]")
    submission = page.locator(f"tr.detail-row[data-detail-for={XSS_ID}] pre.submission")
    assert XSS in submission.inner_text()
    assert "<img src=x onerror=alert(2)>" in submission.inner_text()
    assert submission.locator("script, img").count() == 0
    page.wait_for_timeout(300)
    assert loaded.dialogs == [] and loaded.errors == []
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    image = Image.open(shot).convert("L")
    assert image.size[0] >= 1000 and image.size[1] > 2000
    stat = ImageStat.Stat(image)
    assert stat.stddev[0] > 20  # not blank: text, tables and plots
    assert len(image.getcolors(maxcolors=1 << 16) or range(1 << 16)) > 50


def test_the_compare_page_draws_its_plots(browser: Browser, tmp_path: Path) -> None:
    from test_report_html_compare import COMPARE

    from autorubric_cli.report.html.compare_page import render_compare_html
    from autorubric_cli.report.models_compare import CompareResult

    path = tmp_path / "compare.html"
    path.write_text(render_compare_html(CompareResult.model_validate(COMPARE)))
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-plots-ready='2']", timeout=30_000)
    for figure in page.locator("figure.plot[data-plot]").all():
        assert figure.evaluate(CANVAS_INK)["inked"] >= 1
    assert errors == []
    page.close()
