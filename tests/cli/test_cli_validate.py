"""`autorubric validate` and `simulate` through the CLI: output, JSON shape, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.report.build import build_report
from autorubric_cli.validate.performance import METRICS
from tests.support.cli import cli

ROOT = Path(__file__).resolve().parents[2]
DEMO_RUBRIC = ROOT / "rubrics" / "validate-demo.yaml"
DEMO_DATA = ROOT / "datasets" / "validate-demo.jsonl"


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated study with asymmetric selection effects and judge response sets."""
    out = tmp_path_factory.mktemp("sim") / "study"
    result = cli(
        "simulate", out, "--items", 120, "--human-gamma", 2, "--judge-gamma", -2,
        "--judge-elicitation", "both", "--seed", 3,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return out


def test_simulate_writes_a_study_that_report_and_validate_read(study: Path) -> None:
    assert {p.name for p in study.iterdir()} == {
        "rubric.yaml", "dataset.jsonl", "experiment", "truth.json",
    }  # fmt: skip
    lines = (study / "dataset.jsonl").read_text().splitlines()
    assert len(lines) == 120 and len(json.loads(lines[0])["human_ratings"]["rating"]) == 3
    report = build_report(open_experiment(study / "experiment"))
    assert report["items"]["completed"] == 120 and report["simulated"] is True
    truth = json.loads((study / "truth.json").read_text())
    assert set(truth["best"]) and truth["positive"] == ["A"]
    record = orjson.loads((study / "experiment" / "items.jsonl").read_bytes().splitlines()[0])
    votes = record["criteria"][0]["votes"]
    assert len(votes) == 4 * 5 and all(v["option_set"] for v in votes)
    assert all(v["option_index"] in v["option_set"] for v in votes)


def test_validate_renders_tables_best_marks_and_the_inversion_warning(study: Path) -> None:
    result = cli("validate", study / "experiment")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    for heading in (
        "Forced-choice definitions",
        "Response-set definitions",
        "Downstream decisions",
        "Rank correlation",
    ):
        assert heading in out
    assert " *" in out and "rank inversion" in out and "SIMULATED" in out


def test_validate_json_has_the_documented_shape(study: Path) -> None:
    result = cli("validate", study / "experiment", "--format", "json", "--beta-pair", "B,A")
    assert result.exit_code == 0, result.stderr
    body = json.loads(result.stdout)
    (criterion,) = body["criteria"]
    assert criterion["name"] == "rating" and criterion["n_items"] == 120
    assert criterion["ratings_per_item"] == {"min": 3, "mean": 3.0}
    assert set(criterion["judges"]) == {"j1", "j2", "j3", "j4", "ensemble"}
    for block in criterion["judges"].values():
        assert set(METRICS) <= set(block)
    assert set(criterion["best"].values()) <= {"j1", "j2", "j3", "j4", "ensemble"}
    assert isinstance(criterion["rank_inversions"], list) and criterion["rank_inversions"]
    assert [row["beta"] for row in criterion["beta_sweep"]] == [0.0, 0.1, 0.2, 0.3, 0.4]
    assert criterion["judges"]["j1"]["efficiency"] > 1.0  # response sets from option_set


def test_validate_on_a_run_of_the_validate_demo(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    run = cli("run", DEMO_RUBRIC, DEMO_DATA, "--out", out, "--format", "json")
    assert run.exit_code == 0, run.stderr
    result = cli("validate", out, "--format", "json")
    assert result.exit_code == 0, result.stderr
    body = json.loads(result.stdout)
    names = [c["name"] for c in body["criteria"]]
    assert names == ["resolved", "satisfaction"]
    satisfaction = body["criteria"][1]
    assert satisfaction["human_response_sets"] > 0
    assert satisfaction["judges"]["steady"]["samples_per_item"] == 5.0
    assert body["criteria"][0]["beta_sweep"]  # binary: the (MET, UNMET) pair by default


def test_bad_human_file_is_one_line_naming_file_line_and_key(study: Path, tmp_path: Path) -> None:
    human = tmp_path / "human.jsonl"
    human.write_text(
        '{"id": "s0001", "human_ratings": {"rating": ["A", "b"]}}\n'
        '{"id": "s0002", "human_ratings": {"rating": ["A", "Z"]}}\n'
    )
    result = cli("validate", study / "experiment", "--human", human)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert f"{human}:2: human_ratings.rating:" in lines[0] and "'Z'" in lines[0]
    assert "Traceback" not in result.stdout + result.stderr


def test_human_file_replaces_the_recorded_ratings(study: Path, tmp_path: Path) -> None:
    human = tmp_path / "human.jsonl"
    human.write_text(
        "".join(
            json.dumps({"id": f"s{n:04d}", "human_ratings": {"rating": ["a", "A", ["A", "b"]]}})
            + "\n"
            for n in range(1, 11)
        )
        + json.dumps({"id": "elsewhere", "human_ratings": {"rating": ["A"]}})
        + "\n"
    )
    result = cli("validate", study / "experiment", "--human", human, "-f", "json")
    assert result.exit_code == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["criteria"][0]["n_items"] == 10
    assert body["criteria"][0]["human_response_sets"] == 10
    assert any("1 ids in the --human file" in w for w in body["warnings"])


def test_no_human_ratings_anywhere_is_exit_2_with_one_line(study: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    for name in ("manifest.json", "rubric.yaml"):
        (bare / name).write_bytes((study / "experiment" / name).read_bytes())
    with (bare / "items.jsonl").open("wb") as handle:
        for raw in (study / "experiment" / "items.jsonl").read_bytes().splitlines():
            record = orjson.loads(raw)
            record["human_ratings"] = {}
            handle.write(orjson.dumps(record) + b"\n")
    result = cli("validate", bare)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "no human ratings" in lines[0]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--format", "csv"], "--format"),
        (["--criterion", "nope"], "--criterion"),
        (["--beta", "0.2"], "--beta-pair"),
        (["--positive", "Z"], "--positive"),
        (["--tau", "1.5"], "--tau"),
        (["--beta-sweep", "0,x"], "--beta-sweep"),
    ],
)
def test_bad_flags_exit_2_with_one_line(study: Path, args: list[str], needle: str) -> None:
    result = cli("validate", study / "experiment", *args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]


def test_fc_matrix_file_is_read_and_checked(study: Path, tmp_path: Path) -> None:
    good = tmp_path / "m.json"
    good.write_text(
        json.dumps({"rating": {"A": [{"set": ["A"], "p": 0.5}, {"set": ["A", "B"], "p": 0.5}]}})
    )
    result = cli("validate", study / "experiment", "--fc-matrix", good, "-f", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["criteria"][0]["fc_model"]["kind"] == "matrix"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"rating": {"A": [{"set": ["B"], "p": 1.0}]}}))
    result = cli("validate", study / "experiment", "--fc-matrix", bad)
    assert result.exit_code == 2
    assert f"{bad}: rating.A[0].set:" in result.stderr
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({"nope": {}}))
    result = cli("validate", study / "experiment", "--fc-matrix", unknown)
    assert result.exit_code == 2 and "unknown criterion 'nope'" in result.stderr


def test_simulate_refuses_a_non_empty_directory_and_bad_options(study: Path) -> None:
    result = cli("simulate", study)
    assert result.exit_code == 2 and "not empty" in result.stderr
    result = cli("simulate", study.parent / "other", "--human-elicitation", "sets")
    assert result.exit_code == 2 and "--human-elicitation" in result.stderr


def test_simulate_json_reports_the_population_selections(tmp_path: Path) -> None:
    result = cli(
        "simulate", tmp_path / "s", "--items", 30, "--human-elicitation", "response_set",
        "--max-set-size", 2, "-f", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["experiment"].endswith("experiment") and set(body["judges"]) == {
        "j1", "j2", "j3", "j4",
    }  # fmt: skip
    row = json.loads((tmp_path / "s" / "dataset.jsonl").read_text().splitlines()[0])
    assert all(isinstance(e, list) and 1 <= len(e) <= 2 for e in row["human_ratings"]["rating"])
