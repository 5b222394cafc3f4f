"""Labelling items that carry their own criteria (docs/guides/labels.md): the page offers each
item its own criteria after the shared ones, in a real headless Chromium; `label import` checks a
label against the item's own criteria; the report then holds the judges against the labels,
pooled over the item criteria."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.browser import Watched, headless_chromium
from tests.support.cli import cli
from tests.support.item_experiment import Graded, write_item_experiment

RUBRIC = {
    "criteria": [{"name": "kind", "requirement": "The answer is kind", "weight": 2}],
    "grader": {"judges": [{"model": "openai/a", "id": "a"}, {"model": "openai/b", "id": "b"}]},
}
CONTEXT = [
    {"role": "user", "content": "My father has chest pain."},
    {"role": "assistant", "content": "How long has it lasted?"},
    {"role": "user", "content": "Twenty minutes. What do I do?"},
]
ITEMS = [
    Graded(
        "q1",
        [
            {"requirement": "Tells the user to call emergency services", "tags": ["axis:safety"]},
            {"requirement": "Asks about medication", "weight": 3},
        ],
        {"kind": ["MET", "MET"], "i1": ["MET", "UNMET"], "i2": ["UNMET", "UNMET"]},
        context=CONTEXT,
        submission="Call 112 now.",
    ),
    Graded(
        "q2",
        [{"requirement": "Names a dose range", "tags": ["axis:safety"]}],
        {"kind": ["MET", "UNMET"], "i1": ["MET", "MET"]},
        submission="Take 200-400 mg.",
    ),
]


def test_each_item_is_labelled_on_its_own_criteria(tmp_path: Path) -> None:
    out = write_item_experiment(tmp_path / "exp", RUBRIC, ITEMS)
    assert cli("label", out, "--order", "dataset").exit_code == 0
    with headless_chromium() as browser:
        context = browser.new_context(accept_downloads=True)
        page = Watched(context, (out / "label.html").as_uri(), "body[data-ready]").page
        page.fill("#rater", "ana")
        page.press("#rater", "Enter")
        names = page.locator("#criteria .criterion .name").all_inner_texts()
        assert names == ["1. kind", "2. i1", "3. i2"]
        requirements = page.locator("#criteria .criterion .req").all_inner_texts()
        assert requirements[1:] == [c["requirement"] for c in ITEMS[0].criteria]
        facts = page.locator("#criteria .criterion .facts").all_inner_texts()
        assert facts == [
            "weight 2.0",
            "this item's own · weight 10.0 · axis:safety",  # the default weight
            "this item's own · weight 3.0",
        ]
        turns = page.locator("#conversation-box .turn")  # the context, then the submission
        assert turns.count() == len(CONTEXT) + 1
        assert turns.nth(0).inner_text().endswith(CONTEXT[0]["content"])
        assert turns.nth(len(CONTEXT)).inner_text().endswith("Call 112 now.")
        page.screenshot(path=str(tmp_path / "label-own.png"), full_page=True)
        for key in ("1", "1", "2"):  # kind MET, i1 MET, i2 UNMET
            page.keyboard.press(key)
        assert page.get_attribute("body", "data-complete") == "1"
        page.keyboard.press("ArrowRight")
        assert page.locator("#criteria .criterion").count() == 2  # kind, i1
        page.keyboard.press("2")
        page.keyboard.press("1")
        assert page.get_attribute("body", "data-complete") == "2"
        with page.expect_download() as download:
            page.click("#export")
        download.value.save_as(tmp_path / "ana.jsonl")
        context.close()
    lines = [json.loads(line) for line in (tmp_path / "ana.jsonl").read_text().splitlines()]
    assert {line["id"]: line["labels"] for line in lines} == {
        "q1": {"kind": "MET", "i1": "MET", "i2": "UNMET"},
        "q2": {"kind": "UNMET", "i1": "MET"},
    }
    imported = cli("label", "import", out, tmp_path / "ana.jsonl")
    assert imported.exit_code == 0, imported.output
    report = json.loads(cli("report", out, "--format", "json").stdout)
    pooled = report["human_labels"]["judges"]["pooled"]
    # ensemble: q1 i1 is a 1-1 tie (the worst: UNMET) against MET, i2 UNMET = UNMET, q2 i1 MET
    assert pooled["ensemble"]["n"] == 3 and pooled["ensemble"]["accuracy"] == 2 / 3
    assert pooled["judges"]["a"]["accuracy"] == 1.0
    assert pooled["tags"]["axis:safety"]["ensemble"]["n"] == 2


def test_import_checks_labels_against_the_items_own_criteria(tmp_path: Path) -> None:
    out = write_item_experiment(tmp_path / "exp", RUBRIC, ITEMS)
    bad = tmp_path / "bad.jsonl"
    line = {"id": "q2", "rater": "ana", "labels": {"i1": "MET", "i2": "MET"}}
    bad.write_text(json.dumps(line | {"labelled_at": "2026-11-24T10:00:00Z"}) + "\n")
    result = cli("label", "import", out, bad)
    assert result.exit_code == 2
    assert f"{bad}:1: labels.i2: unknown criterion 'i2' (one of: kind, i1)" in result.stderr
    assert not (out / "human_labels.jsonl").exists()
    good = tmp_path / "good.jsonl"
    line = {"id": "q1", "rater": "ana", "labels": {"i2": "unmet"}}
    good.write_text(json.dumps(line | {"labelled_at": "2026-11-24T10:00:00Z"}) + "\n")
    assert cli("label", "import", out, good).exit_code == 0
    stored = json.loads((out / "human_labels.jsonl").read_text())
    assert stored["labels"] == {"i2": "UNMET"}  # the rubric's spelling
