"""Per-item criteria on the HTML report, in a real headless Chromium (Debian's `chromium`): each
item's details list its own criteria with their requirement, weight and tags; a `final_turn`
criterion says so; the context and the submission read as one conversation; the item-criteria
and tag tables are on the page."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from healthbench_cases import ACC, CLUSTER, CONVERSATION, ITEMS

from tests.support.browser import Watched, headless_chromium
from tests.support.cli import cli
from tests.support.item_experiment import write_item_experiment

POLITE = {
    "name": "polite",
    "requirement": "The final reply is polite",
    "weight": 2,
    "scope": "final_turn",
}


def test_item_details_show_each_items_own_criteria_in_chromium(tmp_path: Path) -> None:
    items = [replace(item, answers={**item.answers, "polite": ["MET"]}) for item in ITEMS]
    rubric = {
        "name": "hb",
        "criteria": [POLITE],
        "grader": {"judges": [{"model": "openai/gpt-4.1", "id": "grader"}], "clip": "mean"},
    }
    out = write_item_experiment(tmp_path / "exp", rubric, items)
    assert cli("report", out, "--format", "html").exit_code == 0
    with headless_chromium() as browser:
        report = Watched(browser, (out / "report.html").as_uri(), "body[data-items-ready]")
        page = report.page
        heads = page.locator("#item-head th").all_inner_texts()
        assert heads[-3:] == ["polite", "item criteria", "error"]
        own = {
            str(r.get_attribute("data-id")): r.locator("td.own").inner_text()
            for r in page.locator("tr.item-row").all()
        }
        assert own == {"hb-a": "2 MET of 3", "hb-b": "3 MET of 3", "hb-c": "1 MET of 2"}
        page.click("tr.item-row[data-id=hb-a]")
        detail = page.locator("tr.detail-row[data-detail-for=hb-a]")
        rows = detail.locator("tr.criterion-row")
        assert rows.count() == 4  # polite, then the item's three
        first = rows.nth(1).locator("td.criterion")
        assert first.locator(".name").inner_text() == "i1"
        assert first.locator(".crit-req").inner_text() == ITEMS[0].criteria[0]["requirement"]
        facts = first.locator(".crit-facts").inner_text()
        assert facts == f"this item's own · weight 5.0 · {ACC}, {CLUSTER}"
        assert (
            rows.nth(3)
            .locator(".crit-facts")
            .inner_text()
            .startswith("this item's own · weight -8.0")
        )
        shared = rows.nth(0).locator("td.criterion")
        assert shared.locator(".crit-scope").inner_text().startswith("scope: final turn")
        assert rows.nth(1).locator(".crit-scope").count() == 0
        turns = detail.locator(".conversation .turn")
        assert turns.count() == len(CONVERSATION) + 1  # the context, then the submission
        assert turns.nth(len(CONVERSATION)).locator("pre").inner_text() == ITEMS[0].submission
        assert detail.locator(".item-tags").inner_text() == "tags: theme:emergency"
        page.fill("#search", "medication")  # an item criterion's requirement is searched
        assert [r.get_attribute("data-id") for r in page.locator("tr.item-row").all()] == ["hb-a"]
        page.fill("#search", "")
        page.click("tr.item-row[data-id=hb-a]")
        page.click("tr.item-row[data-id=hb-a]")
        detail.screenshot(path=str(tmp_path / "item-criteria.png"))
        tables = page.locator("#item-criteria table.data")
        assert tables.count() == 4  # summary, axis, level, theme (one judge: no agreement)
        page.locator("#item-criteria").screenshot(path=str(tmp_path / "tags.png"))
        assert report.errors == [] and report.dialogs == []
