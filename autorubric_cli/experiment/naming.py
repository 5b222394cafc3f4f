"""The experiment directory's name: `--out`, `--name`, or the rubric's name and a UTC stamp."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from autorubric_cli.core.rubric import Rubric
from autorubric_cli.experiment.options import RunOptions


def experiment_directory(rubric: Rubric, rubric_path: Path, options: RunOptions) -> Path:
    """--out, else experiments/<--name>, else experiments/<rubric name or file stem>-<UTC stamp>."""
    if options.out is not None:
        return options.out
    if options.name is not None:
        return Path("experiments") / options.name
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Path("experiments") / f"{directory_stem(rubric, rubric_path)}-{stamp}"


def directory_stem(rubric: Rubric, rubric_path: Path) -> str:
    """The rubric's `name:` made safe for a directory name, else the file's stem."""
    name = "".join(c if c.isalnum() or c in "-_." else "-" for c in (rubric.name or "").strip())
    name = name.strip(".-")
    return name or rubric_path.stem
