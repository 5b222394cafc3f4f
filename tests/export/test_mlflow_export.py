"""An experiment as an MLflow run (docs/guides/tracing.md), in a real tracking store: a SQLite
file in a temporary directory, read back with MlflowClient."""

from __future__ import annotations

import hashlib
import json
import shutil
import uuid
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from tests.support.cli import cli

ROOT = Path(__file__).resolve().parents[2]
RUBRIC = ROOT / "rubrics" / "demo.yaml"
DATA = ROOT / "datasets" / "demo.jsonl"
JUDGES = ("--judge", "simulated/a", "--judge", "simulated/b")


def simulated_run(
    tmp_path: Path, name: str, *extra: str, env: dict[str, str] | None = None
) -> Path:
    out = tmp_path / name
    done = cli(
        "run", RUBRIC, DATA, *JUDGES, "--limit", "8", "--out", out, *extra, env=env, cwd=tmp_path
    )
    assert done.exit_code in (0, 1), done.stderr  # 1: the demo rubric's own gate may fail
    return out


def export(tmp_path: Path, directory: Path, uri: str) -> str:
    done = cli(
        "export", "mlflow", directory, "--tracking-uri", uri, "--experiment", "evals", cwd=tmp_path
    )
    assert done.exit_code == 0, done.stderr
    return done.stderr.split("mlflow run ")[1].split()[0]


def read(path: Path) -> dict:
    return json.loads(path.read_text())


def test_export_round_trip_updates_the_same_run(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    first = simulated_run(tmp_path, "first")
    run_id = export(tmp_path, first, uri)
    client = MlflowClient(uri)
    run = client.get_run(run_id)
    manifest, report = read(first / "manifest.json"), read(first / "report.json")
    assert str(uuid.UUID(manifest["experiment_id"])) == manifest["experiment_id"]
    assert run.data.tags["autorubric.experiment_id"] == manifest["experiment_id"]
    assert run.data.tags["autorubric.status"] == "completed"
    assert run.data.tags["autorubric.simulated"] == "true"
    assert run.data.tags["autorubric.experiment"] == "first"
    assert run.info.run_name == "first" and run.info.status == "FINISHED"
    params = run.data.params
    assert params["rubric_sha256"] == manifest["rubric"]["sha256"]
    assert params["dataset_sha256"] == manifest["dataset"]["sha256"]
    assert params["seed"] == str(manifest["seed"])
    assert params["judges"] == "simulated/a=simulated/a, simulated/b=simulated/b"
    assert params["llm_calls"] == "per_criterion"
    assert params["aggregation"] == manifest["config"]["aggregation"]
    metrics = run.data.metrics
    assert metrics["score.mean"] == pytest.approx(report["score"]["mean"])
    n, std = report["score"]["n"], report["score"]["std"]
    assert metrics["score.se"] == pytest.approx(std / n**0.5)
    criterion = report["criteria"][0]
    assert metrics[f"criterion.{criterion['name']}.met_rate"] == pytest.approx(
        criterion["met_rate"]
    )
    assert metrics["agreement.mean_agreement"] == pytest.approx(
        report["agreement"]["mean_agreement"]
    )
    overall = report["ground_truth"]["overall"]["micro_accuracy"]
    assert metrics["ground_truth.overall.micro_accuracy"] == pytest.approx(overall)
    assert metrics["cost_usd"] == report["cost"]
    assert metrics["tokens.prompt_tokens"] == report["usage"]["prompt_tokens"]
    names = {a.path for a in client.list_artifacts(run_id)}
    assert {"report.json", "report.html", "rubric.yaml", "manifest.json"} <= names
    logged = read(Path(client.download_artifacts(run_id, "report.json", str(tmp_path))))
    assert logged["score"] == report["score"]

    assert export(tmp_path, first, uri) == run_id  # again: the same run, never a duplicate
    evals = client.get_experiment_by_name("evals")
    assert len(client.search_runs([evals.experiment_id])) == 1

    second = simulated_run(
        tmp_path, "second", "--mlflow",
        env={"MLFLOW_TRACKING_URI": uri, "MLFLOW_EXPERIMENT_NAME": "evals"},
    )  # fmt: skip
    runs = client.search_runs([evals.experiment_id])
    assert len(runs) == 2
    ids = {r.data.tags["autorubric.experiment_id"] for r in runs}
    assert ids == {manifest["experiment_id"], read(second / "manifest.json")["experiment_id"]}


def test_an_experiment_without_an_id_is_found_by_its_created_time_and_inputs(
    tmp_path: Path,
) -> None:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    old = simulated_run(tmp_path, "old")
    manifest = read(old / "manifest.json")
    del manifest["experiment_id"]  # as an experiment made before experiments had one
    (old / "manifest.json").write_text(json.dumps(manifest))
    run_id = export(tmp_path, old, uri)
    key = f"{manifest['created']}\n{manifest['rubric']['sha256']}\n{manifest['dataset']['sha256']}"
    tag = MlflowClient(uri).get_run(run_id).data.tags["autorubric.experiment_id"]
    assert tag == hashlib.sha256(key.encode()).hexdigest()
    copy = tmp_path / "copy"
    shutil.copytree(old, copy)
    assert export(tmp_path, copy, uri) == run_id  # the same experiment, wherever it is
