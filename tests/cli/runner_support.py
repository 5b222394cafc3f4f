"""In-process CLI calls through Typer's CliRunner, and small experiments made offline."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from autorubric_cli.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
DEMO_RUBRIC = ROOT / "rubrics" / "demo.yaml"
DEMO_DATA = ROOT / "datasets" / "demo.jsonl"


def invoke(*args: str | Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `autorubric ARGS...`, run in this process."""
    result = CliRunner().invoke(app, [str(a) for a in args], env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def ungated_demo(tmp_path: Path) -> Path:
    """The demo rubric without its gate, so small --limit runs exit 0."""
    text = DEMO_RUBRIC.read_text()
    path = tmp_path / "demo-ungated.yaml"
    path.write_text(text[: text.index("gate:")])
    return path


def demo_run(tmp_path: Path, name: str = "exp", *extra: str, limit: int = 6) -> Path:
    out = tmp_path / name
    code, _, stderr = invoke(
        "run", ungated_demo(tmp_path), DEMO_DATA, "--out", out, "--limit", str(limit), *extra
    )
    assert code == 0, stderr
    return out


def copy_experiment(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".lock"))
    return target


def edit_manifest(directory: Path, **changes: Any) -> None:
    path = directory / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest.update(changes)
    path.write_text(json.dumps(manifest))


def mark_errored(directory: Path, count: int) -> None:
    """Turn the first `count` records into errored ones (as a failed grading writes them)."""
    path = directory / "items.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for record in lines[:count]:
        record.update(status="error", score=None, raw_score=None, error="judge timed out")
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
