"""The labelling page in a real headless Chromium (Debian's `chromium`), driven by the keyboard.

One rater labels 20 demo items (a response set, a "cannot assess", an undo), reloads half-way
and carries on, exports; a second rater labels 10 and exports; both files are imported; the
report's agreement figures are then checked against scikit-learn / krippendorff computed from
the exported files and the item records alone.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest
from label_support import XSS, XSS_ID, cli, graded_demo, read_jsonl
from playwright.sync_api import Browser, BrowserContext
from sklearn.metrics import accuracy_score, cohen_kappa_score

from tests.support.browser import Watched as WatchedPage
from tests.support.browser import headless_chromium

BINARY = ("energy_density", "cycle_life", "thermal_safety", "wrong_claim")
CLARITY = ("Poor", "Fair", "Good", "Excellent")
SATISFACTION = ("Very dissatisfied", "Dissatisfied", "Satisfied", "Very satisfied")
TONE = ("Technical", "Conversational", "Marketing")


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = graded_demo(tmp_path_factory.mktemp("label"))
    result = cli("label", directory, "-o", directory / "page.html")
    assert result.exit_code == 0, result.output
    return directory


@pytest.fixture(scope="module")
def browser(experiment: Path) -> Iterator[Browser]:
    with headless_chromium() as browser:
        yield browser


class Watched(WatchedPage):
    """The labelling page, watched (console errors, dialogs, requests)."""

    def __init__(self, context: BrowserContext, url: str) -> None:
        super().__init__(context, url, "body[data-ready]")

    def item(self) -> str:
        return str(self.page.get_attribute("body", "data-item"))

    def press(self, *keys: str) -> None:
        for key in keys:
            self.page.keyboard.press(key)


def answers(rater: str, i: int) -> dict[str, Any]:
    """What rater `rater` means to answer for the i-th item of the page (and the keys for it)."""
    shift = 0 if rater == "ana" or i % 3 else 1
    keys: list[str] = []
    labels: dict[str, str] = {}
    for c, name in enumerate(BINARY):
        choice = (i + c + shift) % 2
        if rater == "ana" and i == 1 and name == "energy_density":
            keys.append("0")
            labels[name] = "CANNOT_ASSESS"
        else:
            keys.append(str(choice + 1))
            labels[name] = ("MET", "UNMET")[choice]
    clarity = (i + shift) % 4
    keys.append(str(clarity + 1))
    labels["clarity"] = CLARITY[clarity]
    satisfaction = (i * 3 + shift) % 4
    response_set = [SATISFACTION[satisfaction]]
    if rater == "ana" and i == 0:  # a response set: Satisfied, and Very satisfied is reasonable
        satisfaction = 2
        keys.append("Shift+Digit4")
        response_set = ["Satisfied", "Very satisfied"]
    keys.append(str(satisfaction + 1))
    labels["satisfaction"] = SATISFACTION[satisfaction]
    tone = (i + shift) % 3
    keys.append(str(tone + 1))
    labels["tone"] = TONE[tone]
    return {"keys": keys, "labels": labels, "response_sets": {"satisfaction": response_set}}


def label_items(watched: Watched, rater: str, first: int, last: int) -> list[str]:
    """Label items first..last-1 by keyboard; returns their ids in page order."""
    ids = []
    for i in range(first, last):
        ids.append(watched.item())
        if i == 2:  # a wrong answer, undone
            watched.press("2" if answers(rater, i)["keys"][0] == "1" else "1", "u")
        watched.press(*answers(rater, i)["keys"], "n")
    return ids


def export(watched: Watched, target: Path) -> Path:
    with watched.page.expect_download() as download:
        watched.page.click("#export")
    download.value.save_as(target)
    return target


@pytest.fixture(scope="module")
def exported(browser: Browser, experiment: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("exports")
    url = (experiment / "page.html").as_uri()
    context = browser.new_context(accept_downloads=True)
    ana = Watched(context, url)
    order = ana.page.evaluate("window.autorubricLabel.ids()")
    assert ana.item() == order[0]  # the first item is on screen before any name is typed
    ana.page.fill("#rater", "ana")
    ana.page.keyboard.press("Enter")
    ids = label_items(ana, "ana", 0, 10)
    ana.load()  # closing and reopening: the work is in the browser, the place is kept
    assert ana.page.input_value("#rater") == "ana"
    assert ana.item() == order[10]
    assert ana.page.get_attribute("body", "data-complete") == "10"
    ids += label_items(ana, "ana", 10, 20)
    ana_file = export(ana, tmp / "ana.jsonl")
    bo = Watched(context, url)
    bo.page.fill("#rater", "bo")
    bo.page.keyboard.press("Enter")
    assert bo.item() == order[0] and bo.page.get_attribute("body", "data-complete") == "0"
    bo_ids = label_items(bo, "bo", 0, 10)
    bo_file = export(bo, tmp / "bo.jsonl")
    for watched in (ana, bo):
        assert watched.errors == [] and watched.dialogs == []
        assert all(u.startswith(("file:", "data:", "blob:")) for u in watched.requests)
    bo.page.screenshot(path=str(tmp / "label.png"), full_page=True)
    context.close()
    return {"ana": (ana_file, ids), "bo": (bo_file, bo_ids), "order": order}


def test_the_exported_files_hold_every_keyboard_answer(exported: Any) -> None:
    for rater in ("ana", "bo"):
        path, ids = exported[rater]
        lines = {line["id"]: line for line in read_jsonl(path)}
        assert sorted(lines) == sorted(ids) and len(ids) == (20 if rater == "ana" else 10)
        for i, item_id in enumerate(ids):
            line, wanted = lines[item_id], answers(rater, i)
            assert line["rater"] == rater
            assert line["labels"] == wanted["labels"]
            assert line["response_sets"] == wanted["response_sets"]
            assert line["labelled_at"].endswith("Z") and line["started_at"] <= line["labelled_at"]
    ana = {line["id"]: line for line in read_jsonl(exported["ana"][0])}
    first, second = exported["ana"][1][:2]
    assert ana[first]["response_sets"]["satisfaction"] == ["Satisfied", "Very satisfied"]
    assert ana[second]["labels"]["energy_density"] == "CANNOT_ASSESS"


def reference_alpha(files: list[Path], criterion: str, codes: dict[str, int], level: str) -> float:
    lines = [line for f in files for line in read_jsonl(f)]
    raters = sorted({line["rater"] for line in lines})
    items = sorted({line["id"] for line in lines})
    data = np.full((len(raters), len(items)), np.nan)
    for line in lines:
        label = line["labels"].get(criterion)
        if label in codes:
            data[raters.index(line["rater"]), items.index(line["id"])] = codes[label]
    return float(
        krippendorff.alpha(
            reliability_data=data,
            value_domain=sorted(set(codes.values())),
            level_of_measurement=level,
        )
    )


def majority_truth(files: list[Path], criterion: str) -> dict[str, str]:
    votes: dict[str, list[str]] = {}
    for f in files:
        for line in read_jsonl(f):
            votes.setdefault(line["id"], []).append(line["labels"][criterion])
    truth = {}
    for item_id, labels in votes.items():
        ranked = Counter(labels).most_common(2)
        if len(ranked) == 1 or ranked[0][1] > ranked[1][1]:
            truth[item_id] = ranked[0][0]
    return truth


def test_import_then_report_and_validate_use_the_labels(exported: Any, experiment: Path) -> None:
    files = [exported["ana"][0], exported["bo"][0]]
    result = cli("label", "import", experiment, *files)
    assert result.exit_code == 0, result.output
    assert "30 label lines added" in result.output
    again = cli("label", "import", experiment, files[0])
    assert again.exit_code == 0 and "0 label lines added" in again.output
    result = cli("report", experiment, "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    section = report["human_labels"]
    assert section["raters"] == ["ana", "bo"]
    assert section["items_by_raters"] == {"1": 10, "2": 10}
    inter = {c["name"]: c for c in section["inter_rater"]["criteria"]}
    binary = {"UNMET": 0, "MET": 1}
    for name in BINARY:
        wanted = reference_alpha(files, name, binary, "nominal")
        assert inter[name]["krippendorff_alpha"] == pytest.approx(wanted, abs=1e-9)
    clarity = {label: i for i, label in enumerate(CLARITY)}
    wanted = reference_alpha(files, "clarity", clarity, "ordinal")
    assert inter["clarity"]["krippendorff_alpha"] == pytest.approx(wanted, abs=1e-9)
    tone = {label: i for i, label in enumerate(TONE)}
    wanted = reference_alpha(files, "tone", tone, "nominal")
    assert inter["tone"]["krippendorff_alpha"] == pytest.approx(wanted, abs=1e-9)
    # Judges against the labels' majority: cycle_life, the ensemble and one judge.
    truth = majority_truth(files, "cycle_life")
    records = {r["id"]: r for r in read_jsonl(experiment / "items.jsonl")}
    predictors = {
        "ensemble": lambda r: r["criteria"][1]["verdict"],
        "careful": lambda r: next(
            v["verdict"] for v in r["criteria"][1]["votes"] if v["judge"] == "careful"
        ),
    }
    blocks = {"ensemble": section["judges"], **section["judges"]["judges"]}
    for predictor, pick in predictors.items():
        pairs = [(t, pick(records[i])) for i, t in truth.items()]
        pairs = [(t, p) for t, p in pairs if p in binary]
        y_true = [binary[t] for t, _ in pairs]
        y_pred = [binary[p] for _, p in pairs]
        block = next(c for c in blocks[predictor]["criteria"] if c["name"] == "cycle_life")
        assert block["n"] == len(pairs)
        assert block["accuracy"] == pytest.approx(accuracy_score(y_true, y_pred), abs=1e-12)
        assert block["cohen_kappa"] == pytest.approx(cohen_kappa_score(y_true, y_pred), abs=1e-9)
        low, high = block["ci95"]["accuracy"]
        assert low <= block["accuracy"] <= high
    # The labels are the ground truth where the dataset has none: the same figures.
    gt = next(c for c in report["ground_truth"]["criteria"] if c["name"] == "cycle_life")
    ours = next(c for c in section["judges"]["criteria"] if c["name"] == "cycle_life")
    assert gt["accuracy"] == ours["accuracy"] and gt["n"] == ours["n"]
    result = cli("report", experiment, "--format", "json", "--ground-truth", "rater:bo")
    assert json.loads(result.output)["human_labels"]["judges"]["criteria"][1]["n"] <= 10
    result = cli("validate", experiment, "--format", "json")
    assert result.exit_code == 0, result.output
    validated = json.loads(result.output)
    names = {c["name"]: c for c in validated["criteria"]}
    assert set(names) == set(BINARY) | {"clarity", "satisfaction", "tone"}
    html = cli("report", experiment, "--format", "html")
    assert html.exit_code == 0
    page = (experiment / "report.html").read_text()
    assert 'id="human-labels"' in page and 'id="judges-vs-labels"' in page


def test_the_page_shows_markup_as_text_and_runs_nothing(browser: Browser, experiment: Path) -> None:
    context = browser.new_context()
    watched = Watched(context, (experiment / "page.html").as_uri())
    watched.page.evaluate(f"window.autorubricLabel.openId({json.dumps(XSS_ID)})")
    assert watched.item() == XSS_ID
    submission = watched.page.locator("#submission")
    assert XSS in submission.inner_text()
    watched.page.click("#thinking-box summary")
    assert XSS in watched.page.locator("#thinking").inner_text()
    assert watched.page.locator("#item script, #item img, #item textarea").count() == 0
    watched.page.wait_for_timeout(200)
    assert watched.dialogs == [] and watched.errors == []
    why = watched.page.inner_text("#why")
    assert why.startswith("Why this item: #") and "bits" in why
    context.close()


def test_a_fresh_browser_reads_an_exported_file_back(
    browser: Browser, experiment: Path, exported: Any
) -> None:
    context = browser.new_context()  # another machine: nothing in its storage
    watched = Watched(context, (experiment / "page.html").as_uri())
    assert watched.page.get_attribute("body", "data-complete") == "0"
    watched.page.set_input_files("#import", str(exported["ana"][0]))
    watched.page.wait_for_selector("body[data-imported]")
    assert watched.page.input_value("#rater") == "ana"
    assert watched.page.get_attribute("body", "data-imported") == "20"
    assert watched.page.get_attribute("body", "data-complete") == "20"
    watched.page.evaluate(f"window.autorubricLabel.openId({json.dumps(exported['ana'][1][0])})")
    picked = watched.page.locator("[data-criterion=satisfaction] .choice.picked")
    assert picked.get_attribute("data-label") == "Satisfied"
    checked = watched.page.locator("[data-criterion=satisfaction] input[data-set]:checked")
    assert [c.get_attribute("data-set") for c in checked.all()] == ["Satisfied", "Very satisfied"]
    assert watched.errors == []
    context.close()
