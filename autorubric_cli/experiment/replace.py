"""`run --replace`: start an experiment directory over (docs/guides/runs.md).

Only a directory that holds an experiment (its manifest.json) is emptied, under its writer lock,
so a wrong `--out` never deletes anything else and a running writer is never pulled from under.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from autorubric_cli.errors import InputError, writing
from autorubric_cli.experiment.lock import LOCK_FILE, writer_lock
from autorubric_cli.experiment.manifest import MANIFEST, Manifest


def replaceable(directory: Path) -> bool:
    """True when `--replace` may empty `directory`: it holds an experiment."""
    return (directory / MANIFEST).is_file()


def check_replaceable(directory: Path) -> None:
    used = directory.is_dir() and any(p.name != LOCK_FILE for p in directory.iterdir())
    if used and not replaceable(directory):
        raise InputError(
            "--replace empties only an experiment directory (one with manifest.json); "
            "choose another --name/--out",
            path=str(directory),
            key="--replace",
        )


def empty_experiment(directory: Path) -> None:
    """Remove everything in the experiment directory but its lock, holding the lock."""
    if not replaceable(directory):
        return
    with writer_lock(directory):
        for entry in directory.iterdir():
            if entry.name == LOCK_FILE:
                continue
            with writing(entry):
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()


def start_over_command(directory: Path, manifest: Manifest) -> str:
    """The command that starts the experiment over, with judges fixed in the rubric or flags."""
    return (
        f"autorubric run {manifest.rubric.path} {manifest.dataset.path} --out {directory} --replace"
    )
