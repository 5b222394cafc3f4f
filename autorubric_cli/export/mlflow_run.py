"""`autorubric export mlflow DIR`: an experiment as one MLflow run (the `mlflow` extra).

The run is found by its tag `autorubric.experiment_id` (the manifest's `experiment_id`), so
exporting again updates the same run: tags are set again, metrics get a new value at the same
step (MLflow shows the latest), artifacts are replaced, and params, which MLflow never changes
once logged, are logged only when new. Two experiments are two runs.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import orjson
from mlflow.entities import Metric, Param, RunTag
from mlflow.tracking import MlflowClient

from autorubric_cli.experiment.manifest import MANIFEST, REPORT, RUBRIC_COPY, Manifest
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.export.mlflow_fields import EXPERIMENT_ID_TAG, metrics, params, tags
from autorubric_cli.report.build import build_report

DEFAULT_EXPERIMENT = "Default"  # MLflow's own, when neither a name nor MLFLOW_EXPERIMENT_NAME
ARTIFACTS = (MANIFEST, RUBRIC_COPY, "report.html")
STATUS = {"completed": "FINISHED", "failed": "FAILED", "interrupted": "KILLED"}
BATCH = 1000  # MLflow's limit on metrics in one log_batch call


@dataclass(frozen=True)
class ExportedRun:
    run_id: str
    experiment_id: str
    created: bool
    tracking_uri: str


def export_mlflow(
    directory: Path, tracking_uri: str | None = None, experiment_name: str | None = None
) -> ExportedRun:
    """Log the experiment in `directory` (finished or interrupted) as one MLflow run."""
    with quiet_mlflow():
        return _export(directory, tracking_uri, experiment_name)


@contextlib.contextmanager
def quiet_mlflow() -> Iterator[None]:
    """MLflow's own INFO lines ("Creating initial MLflow database tables...") are not ours to
    print: its loggers say warnings only inside the block, unless MLFLOW_LOGGING_LEVEL asks."""
    if os.environ.get("MLFLOW_LOGGING_LEVEL"):
        yield
        return
    loggers = [logging.getLogger(name) for name in ("mlflow", "alembic")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(max(logger.level, logging.WARNING))
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _export(directory: Path, tracking_uri: str | None, experiment_name: str | None) -> ExportedRun:
    opened = open_experiment(directory)
    manifest = opened.manifest
    built = build_report(opened)
    client = MlflowClient(tracking_uri)
    experiment_id = _experiment(client, experiment_name)
    run_id, created = _run(client, experiment_id, manifest)
    existing = client.get_run(run_id).data.params
    fresh = {k: v for k, v in params(manifest, opened.rubric.name).items() if k not in existing}
    now = _millis(None)
    values = [Metric(key, value, now, 0) for key, value in metrics(built).items()]
    client.log_batch(
        run_id,
        params=[Param(key, value) for key, value in fresh.items()],
        tags=[RunTag(key, value) for key, value in tags(manifest).items()],
    )
    for start in range(0, len(values), BATCH):
        client.log_batch(run_id, metrics=values[start : start + BATCH])
    _artifacts(client, run_id, directory, built)
    _status(client, run_id, manifest)
    return ExportedRun(run_id, experiment_id, created, client.tracking_uri)


def _experiment(client: MlflowClient, name: str | None) -> str:
    name = name or os.environ.get("MLFLOW_EXPERIMENT_NAME") or DEFAULT_EXPERIMENT
    found = client.get_experiment_by_name(name)
    return found.experiment_id if found is not None else client.create_experiment(name)


def _run(client: MlflowClient, experiment_id: str, manifest: Manifest) -> tuple[str, bool]:
    """The run tagged with this experiment's id, or a new one: (run id, created)."""
    query = f"tags.`{EXPERIMENT_ID_TAG}` = '{manifest.identity}'"
    runs = client.search_runs([experiment_id], filter_string=query, max_results=1)
    if runs:
        return runs[0].info.run_id, False
    run = client.create_run(
        experiment_id,
        start_time=_millis(manifest.created),
        tags={EXPERIMENT_ID_TAG: manifest.identity},
        run_name=manifest.name,
    )
    return run.info.run_id, True


def _artifacts(client: MlflowClient, run_id: str, directory: Path, built: dict) -> None:
    """report.json as built now (an interrupted run's may be stale), and the files there."""
    for name in ARTIFACTS:
        if (directory / name).is_file():
            client.log_artifact(run_id, str(directory / name))
    with tempfile.TemporaryDirectory(prefix="autorubric-mlflow-") as scratch:
        path = Path(scratch) / REPORT
        path.write_bytes(orjson.dumps(built, option=orjson.OPT_INDENT_2))
        client.log_artifact(run_id, str(path))


def _status(client: MlflowClient, run_id: str, manifest: Manifest) -> None:
    status = STATUS.get(manifest.status)
    if status is None:  # still running
        client.update_run(run_id, status="RUNNING")
    else:
        client.set_terminated(run_id, status, end_time=_millis(ended(manifest)))


def ended(manifest: Manifest) -> str:
    """When the last session ended (what a reader means by the run's end), else the last
    change of the manifest."""
    finished = manifest.runs[-1].get("finished") if manifest.runs else None
    return finished if isinstance(finished, str) else manifest.updated


def _millis(stamp: str | None) -> int:
    """Milliseconds since the epoch of a manifest time (`2026-01-02T03:04:05.678Z`, or whole
    seconds in older manifests), or now."""
    moment = datetime.now(UTC) if stamp is None else datetime.fromisoformat(stamp)
    return round(moment.timestamp() * 1000)
