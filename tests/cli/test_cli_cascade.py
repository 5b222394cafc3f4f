"""`autorubric cascade calibrate` on two simulated runs: JSON, table, HTML, bad input."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
import yaml

from tests.support.browser import headless_chromium
from tests.support.cli import cli

CRITERIA = [
    {"name": "correct", "requirement": "The answer is correct"},
    {
        "name": "style",
        "requirement": "How good is the style?",
        "options": [{"label": "Bad", "value": 0.0}, {"label": "Great", "value": 1.0}],
    },
]
CHEAP = {"model": "simulated/cheap", "id": "cheap", "samples": 3, "params": {"accuracy": 0.75}}
STRONG = {"model": "simulated/strong", "id": "strong", "params": {"accuracy": 0.95}}
N = 40


def run(tmp_path: Path, name: str, judges: list[dict], **grader: object) -> Path:
    rubric = tmp_path / f"{name}.yaml"
    rubric.write_text(
        yaml.safe_dump({"criteria": CRITERIA, "grader": {"judges": judges, **grader}})
    )
    data = tmp_path / "data.jsonl"
    if not data.exists():
        lines = [
            {"id": f"q{i}", "submission": f"answer {i}", "ground_truth": {"correct": "MET"}}
            for i in range(N)
        ]
        data.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = cli("run", rubric, data, "--out", tmp_path / name, "--format", "json")
    assert result.exit_code == 0, result.stderr
    return tmp_path / name


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    return run(tmp_path, "first", [CHEAP]), run(tmp_path, "then", [STRONG])


def test_the_json_holds_every_threshold_and_the_recommendation(runs: tuple[Path, Path]) -> None:
    result = cli("cascade", "calibrate", *runs, "--format", "json", "--target-agreement", "0.9")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    thresholds = [e["threshold"] for e in data["thresholds"]]
    assert {round(i * 0.05, 2) for i in range(21)} <= set(thresholds)
    assert 2 / 3 in thresholds  # a 2-1 split of three samples
    assert thresholds == sorted(thresholds)
    keys = {"threshold", "escalation_rate", "agreement_with_then", "criteria"}
    keys |= {"agreement_with_labels", "cost"}
    entry = data["thresholds"][0]
    assert keys <= set(entry)
    assert [c["name"] for c in entry["criteria"]] == ["correct", "style"]
    assert set(entry["criteria"][0]) == {"name", "escalation_rate", "agreement_with_then"}
    rates = [e["escalation_rate"] for e in data["thresholds"]]
    assert rates == sorted(rates)  # a higher threshold escalates at least as much
    assert (
        data["thresholds"][-1]["agreement_with_then"]
        >= data["thresholds"][0]["agreement_with_then"]
    )
    chosen = data["recommended"]
    assert chosen is not None and chosen["agreement_with_then"] >= 0.9
    reaching = [e for e in data["thresholds"] if e["agreement_with_then"] >= 0.9]
    assert chosen["escalation_rate"] == min(e["escalation_rate"] for e in reaching)
    assert data["items"] == {"paired": N, "only_first": 0, "only_then": 0}
    assert data["warnings"] == []


def test_the_calibration_matches_a_live_simulated_cascade(
    tmp_path: Path, runs: tuple[Path, Path]
) -> None:
    live = run(
        tmp_path,
        "live",
        [CHEAP, STRONG],
        cascade={"first": ["cheap"], "then": ["strong"], "escalate_below": 0.7},
    )
    calibration = json.loads(cli("cascade", "calibrate", *runs, "-f", "json").stdout)
    report = json.loads((live / "report.json").read_text())["cascade"]
    entry = next(e for e in calibration["thresholds"] if e["threshold"] == 0.7)
    assert entry["escalation_rate"] == report["escalation_rate"]
    by_name = {c["name"]: c["escalation_rate"] for c in entry["criteria"]}
    assert by_name == {c["name"]: c["escalation_rate"] for c in report["criteria"]}


def test_table_and_html(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    table = cli("cascade", "calibrate", *runs)
    assert table.exit_code == 0 and "Recommended: escalate_below:" in table.stdout
    out = tmp_path / "cal.html"
    html = cli("cascade", "calibrate", *runs, "-f", "html", "-o", out)
    assert html.exit_code == 0 and html.stdout.strip() == str(out)
    page = out.read_text()
    assert '"kind":"scatter"' in page and 'data-plot="cost"' in page


def test_per_criterion_thresholds_in_the_json(runs: tuple[Path, Path]) -> None:
    args = ("cascade", "calibrate", *runs, "-f", "json", "--target-agreement", "0.9")
    single = json.loads(cli(*args).stdout)
    result = cli(*args, "--per-criterion")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert (single["fit"], data["fit"], data["against"]) == ("one", "per_criterion", "then")
    assert data["thresholds"] == single["thresholds"]  # the sweep is the same
    chosen = data["recommended"]
    assert chosen["threshold"] is None and set(chosen["per_criterion"]) == {"correct", "style"}
    assert chosen["agreement_with_then"] >= 0.9
    # free judges: the fit saves escalations, never more of them than the one threshold
    assert chosen["escalation_rate"] <= single["recommended"]["escalation_rate"]
    fits = {f["name"]: f for f in data["per_criterion"]}
    assert {n: f["threshold"] for n, f in fits.items()} == chosen["per_criterion"]
    by_name = {c["name"]: c for c in chosen["criteria"]}
    for name, fit in fits.items():
        assert fit["escalation_rate"] == by_name[name]["escalation_rate"]
        assert fit["agreement_with_then"] == by_name[name]["agreement_with_then"]
    table = cli("cascade", "calibrate", *runs, "--per-criterion", "--target-agreement", "0.9")
    assert "Per-criterion thresholds" in table.stdout
    assert "Recommended: escalate_below: {correct: " in table.stdout


def test_against_labels_the_target_is_the_ground_truth(
    tmp_path: Path, runs: tuple[Path, Path]
) -> None:
    args = ("cascade", "calibrate", *runs, "-f", "json", "--against", "labels")
    result = cli(*args, "--target-agreement", "0.8")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["against"] == "labels"
    chosen = data["recommended"]
    assert chosen is not None and chosen["agreement_with_labels"] >= 0.8
    reaching = [e for e in data["thresholds"] if e["agreement_with_labels"] >= 0.8]
    assert chosen["escalation_rate"] == min(e["escalation_rate"] for e in reaching)
    fitted = json.loads(cli(*args, "--target-agreement", "0.8", "--per-criterion").stdout)
    assert fitted["recommended"]["agreement_with_labels"] >= 0.8
    unreachable = json.loads(cli(*args, "--target-agreement", "1").stdout)
    assert unreachable["recommended"] is None  # the strong judge errs too: 1.0 is out of reach
    bare = tmp_path / "bare.jsonl"
    bare.write_text("".join(f'{{"id": "q{i}", "submission": "answer {i}"}}\n' for i in range(N)))
    assert cli("run", tmp_path / "first.yaml", bare, "--out", tmp_path / "bare").exit_code == 0
    refused = cli("cascade", "calibrate", tmp_path / "bare", runs[1], "--against", "labels")
    assert refused.exit_code == 2 and "--against" in refused.stderr
    assert "no graded criterion has ground truth" in refused.stderr


def test_bad_input_is_exit_2(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    bad = cli("cascade", "calibrate", *runs, "--target-agreement", "1.5")
    assert bad.exit_code == 2 and "--target-agreement" in bad.stderr
    missing = cli("cascade", "calibrate", runs[0], tmp_path / "nowhere")
    assert missing.exit_code == 2
    other = dict(CRITERIA[1], name="renamed")
    rubric = tmp_path / "o.yaml"
    rubric.write_text(yaml.safe_dump({"criteria": [other], "grader": {"judges": [STRONG]}}))
    data = tmp_path / "o.jsonl"
    data.write_text('{"submission": "x"}\n')
    assert cli("run", rubric, data, "--out", tmp_path / "o").exit_code == 0
    mismatch = cli("cascade", "calibrate", runs[0], tmp_path / "o")
    assert mismatch.exit_code == 2 and "different criteria" in mismatch.stderr


def test_runs_that_cannot_match_a_live_cascade_are_warned_about(tmp_path: Path) -> None:
    first = run(tmp_path, "first", [CHEAP], seed=1)
    then = run(tmp_path, "then", [STRONG], seed=2)
    result = cli("cascade", "calibrate", first, then, "-f", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["warnings"] == [
        "the runs' seeds differ (1, 2): option orders differ"
    ]


def test_the_calibration_page_draws_its_plot_offline(
    tmp_path: Path, runs: tuple[Path, Path]
) -> None:
    out, fitted = tmp_path / "cal.html", tmp_path / "fit.html"
    unreachable = ("--target-agreement", "0.999")  # unanimous yet wrong samples stay wrong
    assert cli("cascade", "calibrate", *runs, "-f", "html", "-o", out, *unreachable).exit_code == 0
    per_criterion = ("--per-criterion", "--target-agreement", "0.9", "-f", "html", "-o", fitted)
    assert cli("cascade", "calibrate", *runs, *per_criterion).exit_code == 0
    with headless_chromium() as browser:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("request", lambda r: errors.append(r.url) if r.url.startswith("http") else None)
        page.goto(out.as_uri())
        page.wait_for_selector("body[data-plots-ready='1']", timeout=30_000)
        cells = [
            r.locator("td").all_inner_texts() for r in page.locator("#thresholds tbody tr").all()
        ]
        text = page.inner_text("body")
        code = page.locator("#recommendation code").all_inner_texts()
        page.screenshot(path=str(tmp_path / "calibration.png"), full_page=True)
        assert page.locator("#per-criterion").count() == 0
        page.goto(fitted.as_uri())
        page.wait_for_selector("body[data-plots-ready='1']", timeout=30_000)
        fit_rows = page.locator("#per-criterion tbody tr").all_inner_texts()
        recommendation = page.locator("#recommendation").inner_text()
        page.screenshot(path=str(tmp_path / "fit.png"), full_page=True)
        assert errors == []
    assert "`" not in text and code == ["then"]  # `then` shown as code, never as backticks
    data = json.loads(cli("cascade", "calibrate", *runs, "-f", "json").stdout)
    assert rows_cover_every_threshold(cells, data["thresholds"])
    assert [r.split()[0] for r in fit_rows] == ["correct", "style"]
    assert recommendation.startswith("Recommended: escalate_below: {correct: ")


def rows_cover_every_threshold(rows: list[list[str]], thresholds: list[dict]) -> bool:
    """Thresholds giving identical figures share one row (`0–0.6667`), and two consecutive
    rows never show the same figures."""
    covered = []
    for row in rows:
        first, _, last = row[0].removesuffix(" *").partition("–")
        span = [e for e in thresholds if float(first) <= e["threshold"] <= float(last or first)]
        assert len({tuple(e[k] for k in FIGURES) for e in span}) == 1, row
        covered += span
    assert all(a[1:] != b[1:] for a, b in zip(rows, rows[1:], strict=False)), rows
    return [e["threshold"] for e in covered] == [e["threshold"] for e in thresholds]


FIGURES = ("escalation_rate", "agreement_with_then", "agreement_with_labels", "cost")


def test_the_table_collapses_thresholds_that_give_the_same_cascade(
    runs: tuple[Path, Path],
) -> None:
    table = cli("cascade", "calibrate", *runs)
    data = json.loads(cli("cascade", "calibrate", *runs, "-f", "json").stdout)
    rows = [
        [cell.strip() for cell in line.strip("│").split("│")]
        for line in table.stdout.splitlines()
        if line.startswith("│")
    ]
    assert len(rows) < len(data["thresholds"])
    assert rows_cover_every_threshold(rows, data["thresholds"])


def test_the_guides_calibration_example_recommends_a_threshold(tmp_path: Path) -> None:
    """docs/guides/cascades.md's own example, run as the page runs it, reaches its target."""
    from tests.docs.doc_blocks import ROOT, page_blocks

    blocks = page_blocks(ROOT / "docs" / "guides" / "cascades.md")
    for block in blocks:
        if "file" in block.notes:
            (tmp_path / block.notes["file"]).write_text(block.text)
    commands = [
        shlex.split(line)[1:]
        for block in blocks
        if block.lang == "bash"
        for line in block.text.splitlines()
        if line.startswith(("autorubric run cheap", "autorubric run strong", "autorubric cascade"))
    ]
    for args in commands[:3]:
        done = cli(*args, cwd=tmp_path)
        assert done.exit_code == 0, done.stderr
    assert commands[2][:2] == ["cascade", "calibrate"]
    assert "Recommended: escalate_below:" in done.stdout
