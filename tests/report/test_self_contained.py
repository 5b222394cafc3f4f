"""An experiment directory stands alone (docs/reference/experiment-directory.md): its records
keep what was graded, so `report --format html` and the labelling page show every item after
the directory moved and the dataset is gone, checked in a real headless Chromium; `resume` of
an unfinished run still needs the dataset. Older records (no submissions) read the dataset as
before."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest
from html_support import cli, parse
from playwright.sync_api import Browser

from autorubric_cli.report.html.items import decode_payload
from tests.support.browser import Watched, headless_chromium
from tests.support.conversations import AGENT_RUN, PLAIN_ID, view_rows, write_dataset

THOUGHT_ID = "thought-1"
THOUGHT = {
    "id": THOUGHT_ID,
    "query": "Is 91 prime?",
    "reference_submission": "No: 91 = 7 × 13.",
    "submission": {"thinking": "7 times 13 is 91.", "output": "91 is not prime: 7 × 13."},
}

OWN_ID = "own-1"
OWN = {  # an item with its own criterion, a context and tags (docs/guides/per-item-rubrics.md)
    "id": OWN_ID,
    "context": [{"role": "user", "content": "My baby has a fever of 38.5. What should I do?"}],
    "submission": "Call your doctor today: a fever at two months needs a check.",
    "rubric": [{"requirement": "Advises calling a doctor", "weight": 5, "tags": ["axis:accuracy"]}],
    "tags": ["theme:fever"],
}


def given_rows() -> list[dict[str, Any]]:
    return [*view_rows(), THOUGHT, OWN]


def as_recorded(row: dict[str, Any]) -> dict[str, Any]:
    """What a record keeps of a dataset row: the submission as given (a `{"messages": ...}`
    object as its list of messages), the query and the reference when the row has them."""
    submission = row["submission"]
    if isinstance(submission, dict) and "messages" in submission:
        submission = submission["messages"]
    kept = {"submission": submission}
    kept |= {k: row[k] for k in ("query", "reference_submission") if k in row}
    return kept


def records(directory: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in (directory / "items.jsonl").read_bytes().splitlines()]


def label_rows(directory: Path) -> dict[str, dict[str, Any]]:
    page = (directory / "label.html").read_text()
    payload = page.split('id="label-data">', 1)[1].split("<", 1)[0]
    return {r["id"]: r for r in decode_payload(payload.strip())}


@pytest.fixture(scope="module")
def moved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run, its directory moved elsewhere, its dataset and rubric deleted; then the
    HTML report and the labelling page written from the moved directory alone."""
    tmp = tmp_path_factory.mktemp("self-contained")
    rubric, data = write_dataset(tmp, given_rows())
    result = cli("run", rubric, data, "--out", tmp / "exp", "--no-cache")
    assert result.exit_code == 0, result.output
    target = tmp / "elsewhere" / "exp"
    shutil.move(tmp / "exp", target)
    data.unlink()
    rubric.unlink()
    (target / "report.html").unlink()
    assert cli("report", target, "--format", "html").exit_code == 0
    labelled = cli("label", target)
    assert labelled.exit_code == 0, labelled.output
    return target


def test_records_keep_the_submission_as_given_query_and_reference(moved: Path) -> None:
    kept = {r["id"]: r for r in records(moved)}
    assert set(kept) == {row["id"] for row in given_rows()}
    for row in given_rows():
        record = kept[row["id"]]
        assert {k: record[k] for k in as_recorded(row)} == as_recorded(row), row["id"]
        absent = {"query", "reference_submission"} - set(row)
        assert absent.isdisjoint(record), row["id"]  # no null keys for what an item lacks


def test_both_pages_hold_every_item_with_its_texts_after_the_move(moved: Path) -> None:
    page = parse(moved / "report.html")
    assert "texts-note" not in page.ids
    shown = {r["id"]: r for r in page.items()}
    labelled = label_rows(moved)
    assert set(shown) == set(labelled) == {row["id"] for row in given_rows()}
    for rows in (shown, labelled):
        assert rows["agent-1"]["conv"] == AGENT_RUN
        assert rows[PLAIN_ID]["sub"] == "A plain answer: the parcel arrives tomorrow."
        thought = rows[THOUGHT_ID]
        assert thought["sub"] == THOUGHT["submission"]["output"]
        assert thought["th"] == THOUGHT["submission"]["thinking"]
        assert (thought["q"], thought["ref"]) == (THOUGHT["query"], THOUGHT["reference_submission"])
        own = rows[OWN_ID]  # the context, then the submission as the final turn
        assert own["conv"] == [*OWN["context"], {"role": "assistant", "content": OWN["submission"]}]
        [criterion] = own["ic"]
        assert (criterion["name"], criterion["requirement"]) == ("i1", "Advises calling a doctor")
        assert (criterion["weight"], criterion["tags"]) == (5.0, ["axis:accuracy"])


def test_the_moved_report_and_labelling_page_show_every_item_in_chromium(
    moved: Path, tmp_path: Path
) -> None:
    # the browser closes within the test: the CLI tests after it need no running event loop
    with headless_chromium() as browser:
        check_the_moved_pages(moved, browser, tmp_path)


def check_the_moved_pages(moved: Path, browser: Browser, tmp_path: Path) -> None:
    report = Watched(browser, (moved / "report.html").as_uri(), "body[data-items-ready]")
    page = report.page
    for row in given_rows():
        page.click(f"tr.item-row[data-id={row['id']}]")
        detail = page.locator(f"tr.detail-row[data-detail-for={row['id']}]")
        if row["id"] == OWN_ID:  # the context's turn, then the submission
            assert detail.locator(".conversation .turn").count() == 2
            facts = detail.locator("td.criterion .crit-facts").all_inner_texts()
            assert facts[-1] == "this item's own · weight 5.0 · axis:accuracy"
        elif isinstance(row["submission"], str):
            assert detail.locator("pre.submission").inner_text() == row["submission"]
        elif row["id"] == THOUGHT_ID:
            assert detail.locator("pre.submission").inner_text() == THOUGHT["submission"]["output"]
            reference = detail.locator(".reference")
            assert reference.locator("h4").inner_text().startswith("Reference submission")
            assert reference.locator("pre").inner_text() == THOUGHT["reference_submission"]
        else:
            assert detail.locator(".conversation .turn").count() >= 2, row["id"]
    thought = page.locator(f"tr.detail-row[data-detail-for={THOUGHT_ID}]")
    thought.screenshot(path=str(tmp_path / "moved-report.png"))
    page.locator(f"tr.detail-row[data-detail-for={OWN_ID}]").screenshot(
        path=str(tmp_path / "moved-own.png")
    )
    assert report.errors == [] and report.dialogs == []
    label = Watched(browser, (moved / "label.html").as_uri(), "body[data-ready]")
    page = label.page
    page.evaluate(f"window.autorubricLabel.openId({json.dumps(THOUGHT_ID)})")
    assert page.inner_text("#submission") == THOUGHT["submission"]["output"]
    assert page.inner_text("#query") == THOUGHT["query"]
    assert page.locator("#reference-box").is_visible()
    page.click("#reference-box summary")
    assert page.inner_text("#reference") == THOUGHT["reference_submission"]
    page.screenshot(path=str(tmp_path / "moved-label.png"), full_page=True)
    page.evaluate(f"window.autorubricLabel.openId({json.dumps(OWN_ID)})")
    assert (
        page.locator("#criteria .criterion .req").all_inner_texts()[-1]
        == "Advises calling a doctor"
    )
    assert page.locator("#conversation-box .turn").count() == 2  # the context, the submission
    page.evaluate("window.autorubricLabel.openId('agent-1')")
    assert page.locator("#conversation-box .turn").count() == len(AGENT_RUN)
    assert page.locator("#reference-box").is_hidden()
    assert label.errors == [] and label.dialogs == []


def test_resume_of_an_unfinished_moved_run_still_needs_its_dataset(tmp_path: Path) -> None:
    rubric, data = write_dataset(tmp_path, given_rows())
    out = tmp_path / "exp"
    assert cli("run", rubric, data, "--out", out, "--no-cache").exit_code == 0
    # as a run stopped after three items leaves it
    (out / "items.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records(out)[:3]))
    manifest = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps(manifest | {"status": "interrupted"}))
    target = tmp_path / "elsewhere"
    shutil.move(out, target)
    data.rename(tmp_path / "away.jsonl")
    before = (target / "items.jsonl").read_bytes()
    result = cli("resume", target, "--no-cache")
    assert result.exit_code == 2
    assert "the dataset this experiment was run on is gone" in result.stderr
    assert str(data) in result.stderr
    assert (target / "items.jsonl").read_bytes() == before  # nothing graded
    (tmp_path / "away.jsonl").rename(data)
    resumed = cli("resume", target, "--no-cache")
    assert resumed.exit_code == 0, resumed.output
    assert sorted(r["id"] for r in records(target)) == sorted(r["id"] for r in given_rows())
    assert all("submission" in r for r in records(target))


def older(directory: Path, source: Path, keep: int = 0) -> None:
    """`source`'s experiment copied to `directory` as an older version wrote it: no texts in
    its records (except the first `keep` records)."""
    shutil.copytree(source, directory)
    lines = []
    for n, record in enumerate(records(source)):
        if n >= keep:
            for key in ("submission", "query", "reference_submission"):
                record.pop(key, None)
        lines.append(orjson.dumps(record) + b"\n")
    (directory / "items.jsonl").write_bytes(b"".join(lines))


def test_older_records_read_the_dataset_while_it_is_there_and_unchanged(tmp_path: Path) -> None:
    rubric, data = write_dataset(tmp_path, given_rows())
    out = tmp_path / "exp"
    assert cli("run", rubric, data, "--out", out, "--no-cache").exit_code == 0
    old = tmp_path / "old"
    older(old, out)
    assert cli("report", old, "--format", "html").exit_code == 0
    page = parse(old / "report.html")
    assert "texts-note" not in page.ids
    rows = {r["id"]: r for r in page.items()}
    assert rows[THOUGHT_ID]["ref"] == THOUGHT["reference_submission"]
    assert rows["agent-1"]["conv"] == AGENT_RUN
    assert cli("label", old).exit_code == 0
    assert label_rows(old)[PLAIN_ID]["sub"].startswith("A plain answer")

    data.write_text(data.read_text() + '{"id": "late", "submission": "x"}\n')
    assert cli("report", old, "--format", "html").exit_code == 0
    text = (old / "report.html").read_text()
    assert "submissions are not shown: the dataset" in text and "changed since the run" in text
    assert all("sub" not in r and "conv" not in r for r in parse(old / "report.html").items())
    refused = cli("label", old)
    assert refused.exit_code == 2 and "cannot write the labelling page" in refused.stderr

    mixed = tmp_path / "mixed"
    older(mixed, out, keep=3)
    data.unlink()
    assert cli("report", mixed, "--format", "html").exit_code == 0
    text = (mixed / "report.html").read_text()
    shown = len(given_rows()) - 3
    note = (
        f"the submissions of {shown} items recorded by an older version are not shown: the dataset"
    )
    assert note in text and "is not there" in text
    with_texts = [
        r["id"] for r in parse(mixed / "report.html").items() if "sub" in r or "conv" in r
    ]
    assert sorted(with_texts) == sorted(r["id"] for r in records(mixed)[:3])
