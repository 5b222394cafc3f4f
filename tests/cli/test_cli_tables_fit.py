"""`check`, `compare`, `run --dry-run` and `validate` at 80 and 100 columns: every name (up to
32 characters) and every figure whole, never cut with `…`, no line wider than the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
from runner_support import DEMO_DATA, invoke, ungated_demo

from autorubric_cli.report.validate_columns import FC_COLUMNS

LONG = {
    "energy_density": "acknowledges_customer_problem",  # 29 characters
    "thermal_safety": "binary_thermal_safety_claim",
}
JUDGES = ("careful", "hasty", "biased")


def renamed(text: str) -> str:
    for old, new in LONG.items():
        text = text.replace(old, new)
    return text


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("fit")
    rubric, data = tmp / "long.yaml", tmp / "long.jsonl"
    rubric.write_text(renamed(ungated_demo(tmp).read_text()))
    data.write_text(renamed(DEMO_DATA.read_text()))
    found = {"rubric": rubric, "data": data}
    for side, seed in (("base", "1"), ("new", "2")):
        out = tmp / side
        code, _, stderr = invoke("run", rubric, data, "--out", out, "--limit", "12", "--seed", seed)
        assert code == 0, stderr
        found[side] = out
    study = tmp / "study"
    code, _, stderr = invoke("simulate", study, "--items", "40", "--seed", "3")
    assert code == 0, stderr
    found["study"] = study / "experiment"
    return found


def shown(columns: int, *args: str | Path) -> str:
    code, stdout, stderr = invoke(*args, env={"COLUMNS": str(columns)})
    assert code == 0, stderr
    assert "…" not in stdout, stdout
    assert max(len(line) for line in stdout.splitlines()) <= columns, stdout
    return stdout


@pytest.mark.parametrize("columns", [80, 100])
def test_check_keeps_every_criterion_name_whole(inputs: dict[str, Path], columns: int) -> None:
    out = shown(columns, "check", inputs["rubric"], inputs["data"])
    for name in (*LONG.values(), "cycle_life", "satisfaction", "weighted_mean"):
        assert name in out, name


@pytest.mark.parametrize("columns", [80, 100])
def test_dry_run_keeps_names_and_figures_whole(inputs: dict[str, Path], columns: int) -> None:
    out = shown(columns, "run", inputs["rubric"], inputs["data"], "--dry-run")
    for name in (*LONG.values(), *JUDGES):
        assert name in out, name
    assert "$0.0000" in out
    assert "181,006" in out  # a judge's prompt tokens over the 48 items, whole


@pytest.mark.parametrize("columns", [80, 100])
def test_compare_keeps_names_and_tests_whole(inputs: dict[str, Path], columns: int) -> None:
    out = shown(columns, "compare", inputs["base"], inputs["new"], "--max-drop", "0.5")
    for name in (*LONG.values(), *JUDGES, "mcnemar_exact", "stuart_maxwell", "score.diff"):
        assert name in out, name


@pytest.mark.parametrize("columns", [80, 100])
def test_validate_keeps_every_figure_name_whole(inputs: dict[str, Path], columns: int) -> None:
    out = shown(columns, "validate", inputs["study"])
    words = out.split()
    for header in FC_COLUMNS.values():
        assert all(word in words for word in header.split()), header


@pytest.mark.parametrize("columns", [80, 100])
def test_every_table_title_of_a_narrow_report_is_one_line(tmp_path: Path, columns: int) -> None:
    """Short names and two options make narrow tables; a title wider than its table used to
    wrap mid-phrase ("Outcomes (items per option, in" / "option order)")."""
    rubric = tmp_path / "r.yaml"
    rubric.write_text(
        "criteria:\n  - {name: c, requirement: r}\ngrader:\n  judges: [{model: simulated/a}]\n"
    )
    data = tmp_path / "d.jsonl"
    data.write_text("".join(f'{{"id": "i{i}", "submission": "x"}}\n' for i in range(3)))
    code, _, stderr = invoke("run", rubric, data, "--out", tmp_path / "out")
    assert code == 0, stderr
    out = shown(columns, "report", tmp_path / "out")
    lines = out.splitlines()
    top = next(
        i for i, line in enumerate(lines) if line.startswith("┏") and "per option" in lines[i + 1]
    )
    assert lines[top - 1].strip() == "Outcomes"  # the whole title, on the line above the table
    assert lines[top - 2].startswith("cost ")  # the line before it is not a piece of the title
    assert "items per option, in option order" in out
