"""`compare` and `run --baseline` end to end: real runs against the loopback judge server with
verdicts scripted per item, so the transitions, the sign and the exit codes are known exactly."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from scipy import stats

from tests.support.cli import cli
from tests.support.experiment.runs import server_rubric, token, write_dataset
from tests.support.judge_server import JudgeServer, scripted_verdicts

ROOT = Path(__file__).resolve().parents[2]

N = 30
CORRECT = "The answer is correct"
HARMFUL = "The answer gives harmful advice"


def script(unmet_correct: set[int], met_harmful: set[int]) -> dict[tuple[str, str], str]:
    verdicts = {}
    for i in range(N):
        verdicts[(token(i), CORRECT)] = "UNMET" if i in unmet_correct else "MET"
        verdicts[(token(i), HARMFUL)] = "MET" if i in met_harmful else "UNMET"
    return verdicts


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A: all correct, none harmful. B: 10 items turn incorrect, 2 turn harmful (run with
    --baseline A --fail-on-regression). C: 2 items turn incorrect (with --baseline A)."""
    tmp = tmp_path_factory.mktemp("compare")
    data = write_dataset(tmp / "data.jsonl", N)
    out = {name: tmp / name for name in "ABC"}
    with JudgeServer() as server:
        rubric = server_rubric(tmp / "rubric.yaml", server.api_base)
        server.answer = scripted_verdicts(script(set(), set()))
        first = cli("run", rubric, data, "--out", out["A"], "--no-cache")
        assert first.exit_code == 0, first.stderr
        server.answer = scripted_verdicts(script(set(range(10)), {20, 21}))
        junit = tmp / "b-junit.xml"
        common = ["--no-cache", "--baseline", out["A"], "--fail-on-regression"]
        second = cli("run", rubric, data, "--out", out["B"], *common, "--junit", junit)
        server.answer = scripted_verdicts(script({0, 1}, set()))
        third = cli("run", rubric, data, "--out", out["C"], *common, "--format", "json")
    assert second.exit_code == 1, second.stderr
    assert "Gate: FAILED" in second.stdout and "score.regression" in second.stdout
    suites = ET.parse(junit).getroot()
    assert [s.get("name") for s in suites] == ["autorubric.B", "autorubric.compare.A.B"]
    assert suites[1].get("failures") == "1"
    assert third.exit_code == 0, third.stderr
    assert json.loads(third.stdout)["items"]["completed"] == N  # stdout is still the report
    return out


def compare_json(*args: str | Path) -> tuple[int, dict]:
    result = cli("compare", *args, "--format", "json")
    assert result.stderr == "" or result.exit_code != 2, result.stderr
    return result.exit_code, json.loads(result.stdout)


def test_scripted_regression_gives_exact_transitions_and_a_significant_drop(
    runs: dict[str, Path],
) -> None:
    code, result = compare_json(runs["A"], runs["B"], "--fail-on-regression", "--top", "20")
    assert code == 1
    assert result["items"] == {
        "paired": N,
        "only_base": 0,
        "only_new": 0,
        "excluded": 0,
        "excluded_errored": 0,
    }
    assert result["warnings"] == []
    score = result["score"]
    assert (score["improved"], score["regressed"], score["unchanged"]) == (0, 12, N - 12)
    assert score["diff"] == pytest.approx(-(10 * 0.5 + 2 * 0.25) / N)
    assert score["diff"] == pytest.approx(score["new_mean"] - score["base_mean"])
    assert score["ci95"][0] <= score["diff"] <= score["ci95"][1] < 0
    assert score["p_value"] < 0.05 and score["p_value_sign"] == pytest.approx(2 * 0.5**12)
    criteria = {c["name"]: c for c in result["criteria"]}
    correct, harmful, style = criteria["correct"], criteria["harmful"], criteria["style"]
    assert correct["transitions"] == {"MET->UNMET": 10, "UNMET->MET": 0}
    assert (correct["base"], correct["new"], correct["n"]) == (1.0, 20 / 30, N)
    assert correct["test"] == "mcnemar_exact" and correct["p_value"] == pytest.approx(2 * 0.5**10)
    assert harmful["transitions"] == {"MET->UNMET": 0, "UNMET->MET": 2}
    assert harmful["p_value"] == pytest.approx(0.5)
    assert correct["p_adjusted"] == pytest.approx(2 * correct["p_value"])  # Holm over 2 defined
    assert style["test"] == "wilcoxon" and style["p_value"] is None
    assert style["undefined"]["p_value"] == "all differences are zero"
    assert [m["id"] for m in result["moved"][:10]] == [f"it{i:04d}" for i in range(10)]
    assert result["moved"][0]["flips"] == [{"criterion": "correct", "base": "MET", "new": "UNMET"}]
    assert [m["id"] for m in result["moved"][10:]] == ["it0020", "it0021"]  # all that moved
    (judge,) = result["judges"]
    assert judge["id"] == "j0" and judge["diff"] == pytest.approx(score["diff"])
    assert result["gate"]["checks"][0]["metric"] == "score.regression"
    assert json.loads((runs["B"] / "compare.json").read_text())["score"] == score


def test_a_small_regression_passes_the_significance_gate_but_not_max_drop(
    runs: dict[str, Path],
) -> None:
    code, result = compare_json(runs["A"], runs["C"], "--fail-on-regression")
    assert code == 0
    expected = stats.wilcoxon([-0.5, -0.5] + [0.0] * (N - 2)).pvalue  # scipy defaults: ~0.157
    assert result["score"]["regressed"] == 2 and result["score"]["p_value"] == pytest.approx(
        expected
    )
    assert result["gate"]["passed"] is True
    code, result = compare_json(runs["A"], runs["C"], "--max-drop", "0.01")
    assert code == 1
    (check,) = result["gate"]["checks"]
    assert check == {
        "metric": "score.diff",
        "min": -0.01,
        "value": pytest.approx(-1 / N),
        "passed": False,
    }


def test_the_other_direction_is_an_improvement(runs: dict[str, Path]) -> None:
    code, result = compare_json(runs["B"], runs["A"], "--fail-on-regression")
    assert code == 0
    assert result["score"]["diff"] > 0 and result["score"]["improved"] == 12
    correct = next(c for c in result["criteria"] if c["name"] == "correct")
    assert correct["transitions"] == {"MET->UNMET": 0, "UNMET->MET": 10}


def test_table_and_markdown_name_the_movers_and_the_gate(
    runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = cli("compare", runs["A"], runs["B"], "--fail-on-regression")
    assert table.exit_code == 1
    assert "it0000" in table.stdout and "MET→UNMET 10" in table.stdout
    assert "NEW scores lower than BASE" in table.stdout and "Gate: FAILED" in table.stdout
    markdown = cli("compare", runs["A"], runs["C"], "--format", "markdown")
    assert markdown.exit_code == 0
    assert markdown.stdout.startswith("## autorubric compare · A → C")
    assert "| it0000 |" in markdown.stdout and "not significant" in markdown.stdout
    assert len(markdown.stdout) < 6000


def test_missing_experiment_is_an_input_error(runs: dict[str, Path], tmp_path: Path) -> None:
    result = cli("compare", runs["A"], tmp_path / "nowhere")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "nowhere" in result.stderr and "Traceback" not in result.stderr


def test_resume_with_baseline_gates_on_the_comparison(runs: dict[str, Path]) -> None:
    failing = cli("resume", runs["B"], "--baseline", runs["A"], "--fail-on-regression")
    assert failing.exit_code == 1, failing.stderr
    assert "Gate: FAILED" in failing.stdout
    passing = cli("resume", runs["C"], "--baseline", runs["A"], "--fail-on-regression")
    assert passing.exit_code == 0, passing.stderr
    compared = json.loads((runs["C"] / "compare.json").read_text())
    assert compared["base"]["experiment"] == "A" and compared["score"]["regressed"] == 2


def test_compare_gate_flags_need_a_baseline_and_a_real_one(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    no_baseline = cli("resume", runs["C"], "--max-drop", "0.1")
    assert no_baseline.exit_code == 2 and "--baseline" in no_baseline.stderr
    wrong = cli("resume", runs["C"], "--baseline", tmp_path / "missing")
    assert wrong.exit_code == 2 and "missing" in wrong.stderr


def test_html_writes_one_page_and_prints_its_path(runs: dict[str, Path], tmp_path: Path) -> None:
    default = cli("compare", runs["A"], runs["B"], "--format", "html", "--fail-on-regression")
    page = runs["B"] / "compare.html"
    assert default.exit_code == 1, default.stderr  # the gate still decides the exit code
    assert default.stdout.strip() == str(page)
    text = page.read_text()
    assert "it0000" in text and "MET → UNMET" in text  # the movers, with their flips
    assert not re.search(r"""<(script|link)[^>]+(src|href)=["']?(https?:)?//""", text)
    chosen = tmp_path / "pages" / "c.html"
    chosen.parent.mkdir()
    explicit = cli("compare", runs["A"], runs["C"], "-f", "html", "-o", chosen)
    assert explicit.exit_code == 0 and explicit.stdout.strip() == str(chosen)
    assert chosen.read_text().startswith("<!DOCTYPE html>") or "<html" in chosen.read_text()[:200]
    misplaced = cli("compare", runs["A"], runs["C"], "-o", chosen)
    assert misplaced.exit_code == 2 and "--output" in misplaced.stderr


def test_the_comparison_goes_to_the_github_step_summary(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    done = cli(
        "compare", runs["A"], runs["C"], "-f", "json", env={"GITHUB_STEP_SUMMARY": str(summary)}
    )
    assert done.exit_code == 0, done.stderr
    text = summary.read_text()
    assert text.startswith("earlier step\n## autorubric compare · A → C")  # appended, not replaced
    assert "| it0000 |" in text


@pytest.mark.parametrize("fmt", ["table", "markdown", "json"])
def test_run_with_a_baseline_says_each_compare_warning_once(tmp_path: Path, fmt: str) -> None:
    """In the table and Markdown output, where the comparison lists its warnings; on stderr
    for the formats whose stdout is one document (json, csv, junit)."""
    demo = ("rubrics/demo.yaml", "datasets/demo.jsonl", "--limit", "4")
    base = tmp_path / "base"
    assert cli("run", *demo, "--out", base, cwd=ROOT).exit_code in (0, 1)
    new = cli(
        "run", *demo, "--out", tmp_path / "new", "--seed", "8", "--baseline", base,
        "--format", fmt, cwd=ROOT,
    )  # fmt: skip
    assert new.exit_code in (0, 1), new.stderr
    seeds = "the seeds differ: BASE 42 vs NEW 8"
    assert (new.stdout + new.stderr).count(seeds) == 1
    assert (seeds in new.stderr) == (fmt == "json")
