"""One experiment rendered in every format speaks one vocabulary (docs/guides/reports.md, "One
vocabulary"): the same words for the same figure, PASSED / FAILED for the gate, → for a move,
`1 rater` but `2 raters`, one note for simulated judges, every figure written by one function,
and `n/a` (never `-`, `None` or `nan`) for an undefined figure. The words are spelt out here,
not imported, so renaming one in the code fails this test."""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from html_support import DEMO_DATA, DEMO_RUBRIC, ROOT, cli
from junitparser import JUnitXml, TestSuite

WITH_OUTCOME = "judges w/ outcome"
AGREEING_PAIRS = "agreeing pairs"
NOT_ASSESSED = "not assessed"
NOT_ASSESSED_MEANS = (
    "not assessed: the share of graded items whose outcome is CANNOT_ASSESS (binary) or an NA "
    "option (multi-choice)"
)
SIMULATED_NOTE = "These results come from SIMULATED judges, not real models."
FAIL_UNDER = ("--fail-under", "0.9")


class Cells(HTMLParser):
    """The page's visible text and its table cells (scripts and styles left out)."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.cells: list[str] = []
        self._cell: list[str] | None = None
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._hidden += tag in ("script", "style")
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        self._hidden -= tag in ("script", "style")
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._hidden:
            return
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def html_cells(page: str) -> tuple[str, list[str]]:
    parser = Cells()
    parser.feed(page)
    return " ".join(" ".join(parser.text).split()), parser.cells


def table_cells(text: str) -> list[str]:
    """The cells of the Rich tables (body and header rows)."""
    cells = []
    for line in text.splitlines():
        for bar in ("│", "┃"):
            if line.startswith(bar):
                cells += [c.strip() for c in line.strip().strip(bar).split(bar)]
    return cells


def markdown_cells(text: str) -> list[str]:
    rows = [line.strip()[1:-1] for line in text.splitlines() if line.startswith("| ")]
    return [c.strip() for row in rows if "---" not in row for c in row.split(" | ")]


def one_rater_labels(directory: Path) -> None:
    """One rater, so the summary must say `1 rater`."""
    at = "2026-01-01T00:00:00Z"
    labels = {"energy_density": "MET"}
    lines = [
        json.dumps({"id": f"q00{i}", "rater": "ana", "labels": labels, "labelled_at": at})
        for i in range(1, 4)
    ]
    (directory / "human_labels.jsonl").write_text("".join(f"{line}\n" for line in lines))


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The demo experiment (ground truth, three simulated judges, a rubric gate and
    `--fail-under`) in every report format, and its comparison with a worse run."""
    base = tmp_path_factory.mktemp("vocabulary")
    demo, hastier = base / "demo", base / "hastier"
    assert cli("run", DEMO_RUBRIC, DEMO_DATA, "--out", demo, "--no-cache").exit_code == 0
    one_rater_labels(demo)
    rubric = base / "hastier.yaml"  # a careless careful judge: outcomes move
    rubric.write_text(DEMO_RUBRIC.read_text().replace("accuracy: 0.92", "accuracy: 0.4"))
    ran = cli("run", rubric, DEMO_DATA, "--out", hastier, "--no-cache")
    assert ran.exit_code in (0, 1), ran.output
    found: dict[str, str] = {}
    for fmt in ("table", "markdown", "json", "csv", "junit"):
        result = cli("report", demo, "--format", fmt, *FAIL_UNDER)
        assert result.exit_code == 1, result.output  # the mean is below 0.9
        found[fmt] = result.stdout
    page = base / "report.html"
    assert cli("report", demo, "--format", "html", "-o", page, *FAIL_UNDER).exit_code == 1
    found["html"] = page.read_text(encoding="utf-8")
    for fmt in ("table", "markdown", "json", "junit"):
        compared = cli("compare", demo, hastier, "--max-drop", "0", "--format", fmt)
        assert compared.exit_code in (0, 1), compared.output
        found[f"compare-{fmt}"] = compared.stdout
    compare_page = base / "compare.html"
    cli("compare", demo, hastier, "--max-drop", "0", "--format", "html", "-o", compare_page)
    found["compare-html"] = compare_page.read_text(encoding="utf-8")
    return found


def human(outputs: dict[str, str], prefix: str = "") -> dict[str, tuple[str, list[str]]]:
    """(text, table cells) of the table, Markdown and HTML outputs."""
    table, markdown = outputs[f"{prefix}table"], outputs[f"{prefix}markdown"]
    return {
        "table": (" ".join(table.split()), table_cells(table)),
        "markdown": (" ".join(markdown.split()), markdown_cells(markdown)),
        "html": html_cells(outputs[f"{prefix}html"]),
    }


def test_the_same_words_for_the_same_figures(outputs: dict[str, str]) -> None:
    for fmt, (text, cells) in human(outputs).items():
        assert WITH_OUTCOME in cells, fmt  # a criterion's `agreement` in the JSON
        assert AGREEING_PAIRS in cells, fmt  # `percent_agreement`
        assert "agreement" not in cells, fmt  # the word that meant either
        assert SIMULATED_NOTE in text, fmt
        assert "1 rater (ana)" in text and "1 raters" not in text, fmt
        assert "Gate: FAILED" in text and "True" not in cells and "False" not in cells, fmt
        results = [c for c in cells if re.fullmatch(r"(?i)pass(ed)?|fail(ed)?", c)]
        assert results and set(results) <= {"PASSED", "FAILED"}, fmt
    assert json.loads(outputs["json"])["gate"]["passed"] is False


def test_the_not_assessed_rate_is_named_plainly_and_explained(outputs: dict[str, str]) -> None:
    """`cannot_assess_rate` heads every criteria table in plain words, explained beside it and
    in the docs (it was "CA/NA rate", a name found nowhere else)."""
    for fmt, (text, cells) in human(outputs).items():
        assert NOT_ASSESSED in cells, fmt
        assert NOT_ASSESSED_MEANS in text, fmt
        assert "CA/NA" not in text, fmt
    docs = (ROOT / "docs" / "guides" / "reports.md").read_text()
    assert f"`{NOT_ASSESSED}`" in docs and "cannot_assess_rate" in docs


def test_an_undefined_figure_is_na_everywhere(outputs: dict[str, str]) -> None:
    report = json.loads(outputs["json"])
    ordinal = next(c for c in report["ground_truth"]["criteria"] if c["kind"] == "ordinal")
    assert ordinal.get("f1") is None and ordinal.get("mcc") is None  # no F1 for an ordinal
    for fmt, (_, cells) in [*human(outputs).items(), *human(outputs, "compare-").items()]:
        assert "n/a" in cells, fmt
        assert not {"-", "—", "None", "nan", "NaN"} & set(cells), fmt
    rows = list(csv.reader(io.StringIO(outputs["csv"])))
    assert not {"None", "nan", "n/a", "-"} & {cell for row in rows for cell in row}


def test_every_figure_is_written_by_one_function(outputs: dict[str, str]) -> None:
    mean = json.loads(outputs["json"])["score"]["mean"]
    shown, exact = f"{mean:.3f}", repr(mean)
    assert len(exact) > len(shown)  # the demo's mean has more than three decimals
    visible = {**{fmt: text for fmt, (text, _) in human(outputs).items()}}
    visible["junit"] = outputs["junit"]
    for fmt, text in visible.items():
        assert shown in text and exact not in text, fmt
    assert exact in outputs["json"]


def junit_suite(text: str) -> TestSuite:
    xml = JUnitXml.fromstring(text)
    return xml if isinstance(xml, TestSuite) else next(iter(xml))


def test_junit_names_every_check_and_says_it_in_words(outputs: dict[str, str]) -> None:
    suite = junit_suite(outputs["junit"])
    names = [case.name for case in suite]
    assert len(names) == len(set(names))  # --fail-under's check is told from the rubric's
    assert {"score.mean min 0.300", "score.mean min 0.900"} <= set(names)
    messages = [r.message or "" for case in suite for r in case.result]
    mean = json.loads(outputs["json"])["score"]["mean"]
    assert f"score.mean = {mean:.3f} < min 0.900" in messages
    for message in messages + [r.message or "" for r in junit_results(outputs)]:
        assert not re.search(r"\{|\}|None|min=|max=|'|\d\.\d{5,}", message), message


def junit_results(outputs: dict[str, str]) -> list[object]:
    suite = junit_suite(outputs["compare-junit"])
    return [r for case in suite for r in case.result]


def test_a_simulated_run_says_so_in_csv_and_junit(outputs: dict[str, str]) -> None:
    assert json.loads(outputs["json"])["simulated"] is True
    header, *rows = list(csv.reader(io.StringIO(outputs["csv"])))
    assert header[-1] == "simulated" and rows
    assert {row[-1] for row in rows} == {"true"}
    suite = junit_suite(outputs["junit"])
    assert suite.name == "autorubric.demo (simulated judges)"
    assert {p.name: p.value for p in suite.properties()} == {"simulated": "true"}


def test_the_comparison_uses_the_same_words(outputs: dict[str, str]) -> None:
    transitions = [
        key for c in json.loads(outputs["compare-json"])["criteria"] for key in c["transitions"]
    ]
    assert "MET->UNMET" in transitions  # the JSON keys are the contract: unchanged
    for fmt, (text, cells) in human(outputs, "compare-").items():
        assert "MET→UNMET" in text and "->" not in text and "-&gt;" not in text, fmt
        assert re.search(r"Gate: (PASSED|FAILED)", text), fmt
        results = [c for c in cells if re.fullmatch(r"(?i)pass(ed)?|fail(ed)?", c)]
        assert results and set(results) <= {"PASSED", "FAILED"}, fmt
