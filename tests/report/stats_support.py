"""Offline experiments on clustered items for the standard-error, power and bias tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import statsmodels.api as sm
import yaml
from typer.testing import CliRunner

from autorubric_cli.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
DEMO_RUBRIC = ROOT / "rubrics" / "demo.yaml"
DEMO_DATA = ROOT / "datasets" / "demo.jsonl"


def invoke(*args: object) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def clustered_data(directory: Path, per_doc: int = 4) -> Path:
    """The demo dataset with `metadata.doc`: `per_doc` consecutive items share a document;
    every fifth item has no doc (its own cluster)."""
    rows = [json.loads(line) for line in DEMO_DATA.read_text().splitlines() if line.strip()]
    for i, row in enumerate(rows):
        if i % 5 != 4:
            row.setdefault("metadata", {})["doc"] = f"d{i // per_doc}"
    path = directory / "clustered.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def rubric(directory: Path, name: str = "rubric.yaml", **changes: Any) -> Path:
    """The demo rubric without its gate, with top-level keys replaced by `changes`."""
    data = yaml.safe_load(DEMO_RUBRIC.read_text())
    data.pop("gate")
    data.update(changes)
    path = directory / name
    path.write_text(yaml.safe_dump(data))
    return path


def judges(**params: dict[str, Any]) -> dict[str, Any]:
    """A grader section with one simulated judge per keyword (model simulated/<name>)."""
    data = yaml.safe_load(DEMO_RUBRIC.read_text())["grader"]
    data["judges"] = [
        {"model": f"simulated/{name}", "id": name, "params": p} for name, p in params.items()
    ]
    return data


def records(directory: Path) -> list[dict[str, Any]]:
    lines = (directory / "items.jsonl").read_text().splitlines()
    return sorted((json.loads(line) for line in lines), key=lambda r: r["index"])


def cluster_bse(values: np.ndarray, groups: np.ndarray) -> Any:
    """statsmodels' cluster-robust fit of a constant (the reference)."""
    ones = np.ones(len(values))
    return sm.OLS(values, ones).fit(cov_type="cluster", cov_kwds={"groups": groups})


def group_ids(keys: list[str | None]) -> np.ndarray:
    """Integer groups; an item without a key is its own group."""
    named = {k: i for i, k in enumerate(sorted({k for k in keys if k is not None}))}
    return np.array([named[k] if k is not None else 10_000 + i for i, k in enumerate(keys)])
