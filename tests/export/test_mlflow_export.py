"""An experiment as an MLflow run (docs/guides/tracing.md), in a real tracking store: a SQLite
file in a temporary directory, read back with MlflowClient."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import uuid
from datetime import datetime
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


def test_the_run_reads_well_in_mlflow(tmp_path: Path) -> None:
    """A real duration, the headline metrics only (the rest of the report is the report.json
    artifact), params as values rather than Python reprs, and none of MLflow's INFO lines: the
    export runs as a user runs it, in its own process, into a new store."""
    uri = f"sqlite:///{tmp_path / 'fresh.db'}"  # a new store: MLflow creates its tables
    first = simulated_run(tmp_path, "first")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM_")}
    done = subprocess.run(
        [sys.executable, "-c", WATCHED_EXPORT, str(first), "--tracking-uri", uri,
         "--experiment", "evals"],
        capture_output=True, text=True, cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)},
        timeout=300,  # a hang guard only
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "INFO" not in done.stderr, done.stderr
    assert done.stderr.startswith("autorubric: mlflow run ")
    # MLflow imports litellm (to price traces), whose import fetches a price map unless told not
    # to: the switch is set before MLflow is imported, and before litellm if it is
    seen = json.loads(done.stdout)
    assert seen["mlflow"] == "True" and seen.get("litellm", "True") == "True"
    run_id = done.stderr.split("mlflow run ")[1].split()[0]
    run = MlflowClient(uri).get_run(run_id)
    manifest = read(first / "manifest.json")
    session = manifest["runs"][-1]
    assert run.info.start_time == millis(manifest["created"])
    assert run.info.end_time == millis(session["finished"])
    assert millis(session["finished"]) % 1000 or millis(session["started"]) % 1000  # not seconds
    metrics = run.data.metrics
    headline = {"score.mean", "score.se", "items.completed", "cost_usd", "agreement.mean_agreement"}
    headline |= {"ground_truth.overall.micro_accuracy", "ground_truth.score.spearman"}
    assert headline <= set(metrics)
    assert len(metrics) < 100
    assert not [k for k in metrics if ".ci95" in k or ".confusion" in k or "pairwise" in k]
    assert "ground_truth.criteria.energy_density.accuracy" in metrics
    params = run.data.params
    assert params["cannot_assess.strategy"] == "skip"
    assert params["length_penalty"] == "none"
    assert not [v for v in params.values() if v.startswith(("{", "[")) or v == "None"], params


def millis(stamp: str) -> int:
    return round(datetime.fromisoformat(stamp).timestamp() * 1000)


# `autorubric export mlflow ARGS` in a fresh interpreter that notes LITELLM_LOCAL_MODEL_COST_MAP
# at the moment mlflow, and litellm if anything imports it, are first imported
WATCHED_EXPORT = """
import importlib.abc, json, os, sys
seen = {}
class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name in ("mlflow", "litellm") and name not in seen:
            seen[name] = os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP")
sys.meta_path.insert(0, Watch())
from autorubric_cli.cli.app import app
try:
    app(["export", "mlflow", *sys.argv[1:]])
except SystemExit as exit:
    code = exit.code
print(json.dumps(seen))
sys.exit(code)
"""
