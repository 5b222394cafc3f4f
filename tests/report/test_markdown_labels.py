"""The Markdown report's human-labels section (docs/guides/labels.md): the figures of the JSON
report's
`human_labels`, in the words and cells of the table output, and nothing without labels.

A real experiment: the demo graded by its simulated judges, then three raters' labels brought in
by `autorubric label import`. The JSON figures themselves are checked against `krippendorff`
and scikit-learn in tests/labels/test_label_browser.py; here the Markdown is parsed and its
cells compared with them.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.docs.doc_blocks import ROOT, page_blocks
from tests.labels.label_support import DEMO_DATA, DEMO_RUBRIC, graded_demo
from tests.support.cli import cli

HEADING = "### Human labels"
VERSUS = "### Judges against the human labels: accuracy [95% CI]"
CLARITY = ["Poor", "Fair", "Good", "Excellent"]
TONE = ["Technical", "Conversational", "Marketing"]
# rater -> (items labelled, shift of the options from ana's): items_by_raters {1: 2, 2: 6, 3: 4}
RATERS = {"ana": (range(12), 0), "bo": (range(10), 1), "cy": (range(4), 2)}


def label_line(rater: str, i: int, shift: int) -> dict[str, Any]:
    """Raters that mostly agree; `thermal_safety` always MET (an undefined α); cy cannot assess
    the first item's energy density (an abstention, missing from α)."""
    moved = shift if i % 3 == 0 else 0
    energy = ["MET", "UNMET"][(i + moved) % 2]
    if rater == "cy" and i == 0:
        energy = "CANNOT_ASSESS"
    labels = {
        "energy_density": energy,
        "thermal_safety": "MET",
        "clarity": CLARITY[(i + moved) % 4],
        "tone": TONE[(i + moved) % 3],
    }
    return {
        "id": f"q{i + 1:03d}",
        "rater": rater,
        "labels": labels,
        "labelled_at": f"2026-11-24T10:{i:02d}:00Z",
    }


@pytest.fixture(scope="module")
def experiments(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the graded demo without labels, a copy with three raters' labels imported)."""
    base = tmp_path_factory.mktemp("markdown-labels")
    plain = graded_demo(base)
    labelled = base / "labelled"
    shutil.copytree(plain, labelled)
    files = []
    for rater, (items, shift) in RATERS.items():
        path = base / f"{rater}.jsonl"
        lines = [json.dumps(label_line(rater, i, shift)) + "\n" for i in items]
        path.write_text("".join(lines))
        files.append(path)
    result = cli("label", "import", labelled, *files)
    assert result.exit_code == 0, result.output
    return plain, labelled


def report(directory: Path, fmt: str, *options: str) -> str:
    result = cli("report", directory, "--format", fmt, *options)
    assert result.exit_code == 0, result.output
    return result.stdout


def cells(line: str) -> list[str]:
    """The cells of one Markdown table row (`\\|` is a literal bar)."""
    inner = line.strip()[2:-2]
    return [c.replace("\\|", "|") for c in re.split(r"(?<!\\) \| ", inner)]


def section(markdown: str, heading: str) -> tuple[list[str], list[list[str]]]:
    """(the lines of text, the table's rows: header first) under `heading`, to the next one."""
    lines = markdown.splitlines()
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("#")), len(lines))
    body = [line for line in lines[start:end] if line]
    rows = [cells(line) for line in body if line.startswith("|")]
    assert rows[1] == ["---"] * len(rows[0])
    return [line for line in body if not line.startswith("|")], [rows[0], *rows[2:]]


def figure(cell: str) -> float | None:
    return None if cell == "n/a" else float(cell)


def with_ci(cell: str) -> tuple[float, float, float]:
    match = re.fullmatch(r"(-?[\d.]+) \[(-?[\d.]+), (-?[\d.]+)\]", cell)
    assert match, cell
    value, low, high = (float(g) for g in match.groups())
    return value, low, high


def rich_rows(table_output: str) -> set[tuple[str, ...]]:
    """Every header and body row of the Rich tables, as stripped cells."""
    rows = set()
    for line in table_output.splitlines():
        for bar in ("│", "┃"):
            if line.startswith(bar):
                rows.add(tuple(c.strip() for c in line.strip().strip(bar).split(bar)))
    return rows


def close(cell: str, value: float | None, digits: int = 3) -> bool:
    if value is None:
        return figure(cell) is None
    return figure(cell) == pytest.approx(value, abs=0.5 * 10**-digits + 1e-12)


def test_the_section_shows_the_json_figures(experiments: tuple[Path, Path]) -> None:
    _, labelled = experiments
    markdown = report(labelled, "markdown")
    labels = json.loads(report(labelled, "json"))["human_labels"]
    text, rows = section(markdown, HEADING)
    # The summary line: raters, items per number of raters, the ground truth chosen.
    (summary,) = text
    match = re.fullmatch(r"(\d+) raters \((.*)\); (.*); ground truth: (\S+)", summary)
    assert match, summary
    count, names, per_count, truth = match.groups()
    assert int(count) == len(labels["raters"]) == 3
    assert names.split(", ") == labels["raters"] == ["ana", "bo", "cy"]
    pairs = re.findall(r"(\d+) raters?: (\d+) items?", per_count)  # plurals agree
    assert {n: int(k) for n, k in pairs} == labels["items_by_raters"] == {"1": 2, "2": 6, "3": 4}
    assert truth == labels["ground_truth"] == "majority"
    # Inter-rater agreement: one row per labelled criterion, in the JSON's order.
    header, *body = rows
    assert header == ["criterion", "items (2+ raters)", "Kripp. α (raters)", "agreeing pairs"]
    inter = labels["inter_rater"]["criteria"]
    assert [r[0] for r in body] == [c["name"] for c in inter]
    assert [c["name"] for c in inter] == ["energy_density", "thermal_safety", "clarity", "tone"]
    for row, block in zip(body, inter, strict=True):
        assert int(row[1]) == block["n_items"]
        assert close(row[2], block["krippendorff_alpha"]), (row, block)
        assert close(row[3], block["percent_agreement"]), (row, block)
    undefined = next(c for c in inter if c["name"] == "thermal_safety")
    assert undefined["krippendorff_alpha"] is None  # every rater said MET: no variance
    defined = [c["krippendorff_alpha"] for c in inter if c["name"] != "thermal_safety"]
    assert all(a is not None and a < 1 for a in defined)  # the raters disagree somewhere
    # The judges against the labels: accuracy [95% CI] for the ensemble and every judge.
    text, rows = section(markdown, VERSUS)
    assert text == []
    judges = labels["judges"]
    predictors = {"ensemble": judges, **judges["judges"]}
    header, *body = rows
    assert header == ["criterion", *predictors] == ["criterion", "ensemble", *judges["judges"]]
    with_truth = [c["name"] for c in judges["criteria"] if c["n"]]
    assert [r[0] for r in body] == with_truth and len(with_truth) >= 3
    for row in body:
        for cell, block in zip(row[1:], predictors.values(), strict=True):
            criterion = next(c for c in block["criteria"] if c["name"] == row[0])
            value, low, high = with_ci(cell)
            assert value == pytest.approx(criterion["accuracy"], abs=0.0005 + 1e-12)
            wanted_low, wanted_high = criterion["ci95"]["accuracy"]
            assert low == pytest.approx(wanted_low, abs=0.005 + 1e-12)
            assert high == pytest.approx(wanted_high, abs=0.005 + 1e-12)
    # Another ground truth is named and changes the judges' figures.
    by_bo = report(labelled, "markdown", "--ground-truth", "rater:bo")
    (summary,) = section(by_bo, HEADING)[0]
    assert summary.endswith("; ground truth: rater:bo")
    assert section(by_bo, VERSUS)[1] != section(markdown, VERSUS)[1]


def test_the_cells_are_the_table_outputs(experiments: tuple[Path, Path]) -> None:
    """The same words and figures as `--format table`: every Markdown row (header included)
    is a row of the Rich tables, and the summary line is the raters table's title."""
    _, labelled = experiments
    markdown = report(labelled, "markdown")
    table = report(labelled, "table")
    shown = rich_rows(table)
    for heading in (HEADING, VERSUS):
        for row in section(markdown, heading)[1]:
            assert tuple(row) in shown, (row, sorted(shown))
    (summary,) = section(markdown, HEADING)[0]
    title = " ".join(f"Human labels: {summary}".split())
    assert title in " ".join(table.split()), table
    assert VERSUS.removeprefix("### ") in table


def test_without_labels_there_is_no_section(experiments: tuple[Path, Path]) -> None:
    """No labels, no section; and the section only adds lines: cut out, the labelled
    experiment's Markdown is the unlabelled one's, byte for byte."""
    plain, labelled = experiments
    assert json.loads(report(plain, "json"))["human_labels"] is None
    without = report(plain, "markdown")
    assert "Human labels" not in without and "human labels" not in without
    assert "Kripp. α (raters)" not in without
    with_labels = report(labelled, "markdown")
    lines = with_labels.splitlines(keepends=True)
    start = lines.index(HEADING + "\n") - 1  # the blank line before the heading
    after = range(lines.index(VERSUS + "\n") + 1, len(lines))
    end = next((i - 1 for i in after if lines[i].startswith("#")), len(lines))  # its blank
    assert end > start + 8
    assert "".join(lines[:start] + lines[end:]) == without


def test_the_docs_show_what_their_example_prints(tmp_path: Path) -> None:
    """docs/guides/labels.md's example: its label files, imported into the demo, print the section
    the page shows (its `text` block is not run by tests/docs)."""
    blocks = page_blocks(ROOT / "docs" / "guides" / "labels.md")
    files = []
    for block in blocks:
        if block.lang == "jsonl" and "file" in block.notes:
            files.append(tmp_path / block.notes["file"])
            files[-1].write_text(block.text)
    assert len(files) == 2
    shown = next(b.text for b in blocks if b.lang == "text" and b.text.startswith(HEADING))
    out = tmp_path / "experiments" / "labelled"
    assert cli("run", DEMO_RUBRIC, DEMO_DATA, "--out", out, "--no-cache").exit_code == 0
    assert cli("label", "import", out, *files).exit_code == 0
    markdown = report(out, "markdown")
    start = markdown.index(HEADING)
    assert markdown[start : start + len(shown)] == shown
