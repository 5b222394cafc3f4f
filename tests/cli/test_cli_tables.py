"""Terminal tables stay readable at 80 and 100 columns, and piped output is not squeezed:
whole names, distributions in option order, every agreement figure named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from runner_support import DEMO_DATA, DEMO_RUBRIC, demo_run, invoke, ungated_demo

from tests.support import TEST_KEY_ENV


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_run(tmp_path_factory.mktemp("tables"), limit=12)


def rubric_options(name: str) -> list[str]:
    rubric = yaml.safe_load(DEMO_RUBRIC.read_text())
    criterion = next(c for c in rubric["criteria"] if c["name"] == name)
    return [o["label"] for o in criterion["options"]]


@pytest.mark.parametrize("columns", [80, 100])
def test_report_tables_fit_and_keep_every_name_whole(experiment: Path, columns: int) -> None:
    code, stdout, stderr = invoke("report", experiment, env={"COLUMNS": str(columns)})
    assert code == 0, stderr
    lines = stdout.splitlines()
    assert max(len(line) for line in lines) <= columns
    assert "…" not in stdout
    report = json.loads((experiment / "report.json").read_text())
    for criterion in report["criteria"]:
        rows = [line for line in lines if f"│ {criterion['name']} " in line]
        assert len(rows) >= 4, criterion["name"]  # criteria, outcomes, agreement, ground truth
    for judge in report["judges"]:
        assert any(f"│ {judge['model']}" in line for line in lines), judge["model"]


@pytest.mark.parametrize("columns", [80, 100])
def test_outcomes_are_listed_in_option_order(experiment: Path, columns: int) -> None:
    code, stdout, _ = invoke("report", experiment, env={"COLUMNS": str(columns)})
    assert code == 0
    report = json.loads((experiment / "report.json").read_text())
    section = stdout[stdout.index("Outcomes") :]
    for name in ("clarity", "satisfaction", "tone"):
        shown = report_distribution(report, name)
        labels = [label for label in rubric_options(name) if label in shown]
        assert list(report_distribution(report, name)) == labels  # report.json too
        row = cell_text(section.splitlines(), name)
        positions = [row.index(f"{label} ") for label in labels]
        assert positions == sorted(positions), (name, row)


def cell_text(lines: list[str], name: str) -> str:
    """The second cell of the table row named `name`, its wrapped lines joined."""
    start = next(i for i, line in enumerate(lines) if line.startswith(f"│ {name} "))
    parts = [lines[start].split("│")[2]]
    for line in lines[start + 1 :]:
        cells = line.split("│")
        if len(cells) < 3 or cells[1].strip():
            break
        parts.append(cells[2])
    return " ".join(" ".join(parts).split())


def report_distribution(report: dict, name: str) -> dict[str, int]:
    return next(c for c in report["criteria"] if c["name"] == name)["distribution"]


def test_each_agreement_figure_says_what_it_measures(experiment: Path) -> None:
    code, stdout, _ = invoke("report", experiment, env={"COLUMNS": "100"})
    assert code == 0
    flat = " ".join(stdout.split())
    assert "judges w/ outcome: the share of judges (one kept sample each, abstentions set" in flat
    assert "agreeing pairs: the share of pairs of judges that gave an item the same answer" in flat
    criteria_header = next(line for line in stdout.splitlines() if "┃ criterion" in line)
    assert "judges" in criteria_header and "agreement" not in criteria_header


def test_a_single_judge_run_says_why_agreement_is_absent(tmp_path: Path) -> None:
    rubric = yaml.safe_load(ungated_demo(tmp_path).read_text())
    rubric["grader"]["judges"] = rubric["grader"]["judges"][:1]
    path = tmp_path / "one-judge.yaml"
    path.write_text(yaml.safe_dump(rubric))
    out = tmp_path / "one"
    code, _, stderr = invoke("run", path, DEMO_DATA, "--out", out, "--limit", "3")
    assert code == 0, stderr
    code, stdout, _ = invoke("report", out, env={"COLUMNS": "100"})
    assert code == 0
    flat = " ".join(stdout.split())
    assert "Agreement between judges: not shown, this run has one judge" in flat
    assert "Cohen's κ" not in flat and "agreeing pairs" not in flat


def test_piped_output_uses_columns_or_140_never_80(tmp_path: Path) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text(
        "criteria:\n  - name: a_rather_long_criterion_name\n    requirement: States it\n"
        f"grader:\n  judges:\n    - model: openai/gpt-4.1-mini\n      api_key_env: {TEST_KEY_ENV}\n"
    )
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "x", "submission": "NMC stores 270 Wh/kg."}\n')
    env = {TEST_KEY_ENV: "sk-test", "COLUMNS": None}
    code, stdout, stderr = invoke("run", rubric, data, "--dry-run", env=env)
    assert code == 0, stderr
    assert "openai/gpt-4.1-mini" in stdout and "a_rather_long_criterion_name" in stdout
    assert max(len(line) for line in stdout.splitlines()) > 80
    assert max(len(line) for line in stdout.splitlines()) <= 140
    env["COLUMNS"] = "60"
    code, stdout, _ = invoke("run", rubric, data, "--dry-run", env=env)
    assert code == 0
    assert max(len(line) for line in stdout.splitlines()) <= 60
    assert "…" not in stdout
