"""`resume` continues a run only against the inputs it started with (docs/guides/runs.md).

The dataset must be byte-identical (SHA-256). The rubric is held to what decides the results
(`core.settings.results_sha256`): an edit of its operational settings only (timeouts, retries,
concurrency, ...) is accepted and those settings take effect; any other change is refused. Two
files are checked, the experiment's copy `DIR/rubric.yaml` and the rubric the run was started
from; an edited copy's settings win over an edited source's.

An experiment made before the lock existed has only the SHA-256 of the whole rubric file: the
lock is then computed from whichever file still has that SHA-256 (the copy first), and an edit
of the other is judged against it. When both changed, nothing tells what the run was graded
with, and `resume` refuses as it always did.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autorubric_cli.core.rubric import Rubric
from autorubric_cli.core.settings import Settings, changed_settings, results_sha256, settings_of
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.manifest import (
    MANIFEST,
    RUBRIC_COPY,
    Manifest,
    RubricLock,
    sha256_file,
)
from autorubric_cli.loading.rubric_loader import load_rubric

CHANGED = "changed since the run started (SHA-256 differs); start a new run instead of resuming"


@dataclass
class Unchanged:
    """The inputs check passed: the lock to record, and the operational settings the rubric
    files changed since the last session (to apply)."""

    lock: RubricLock
    edits: Settings


def lock_of(rubric: Rubric) -> RubricLock:
    return RubricLock(results_sha256=results_sha256(rubric), settings=settings_of(rubric.grader))


def check_unchanged(manifest: Manifest, directory: Path) -> Unchanged:
    """Resume only against the inputs the run started with, operational settings aside."""
    try:
        check_dataset(manifest)
        return check_rubric(manifest, directory)
    except OSError as exc:
        raise InputError(
            f"cannot read an input recorded in manifest.json: {exc.strerror}",
            path=str(directory / MANIFEST),
        ) from None


def check_dataset(manifest: Manifest) -> None:
    dataset = Path(manifest.dataset.path)
    if not dataset.is_file():
        raise InputError("the dataset this experiment was run on is gone", path=str(dataset))
    if sha256_file(dataset) != manifest.dataset.sha256:
        raise InputError(f"dataset {CHANGED}", path=str(dataset))


def check_rubric(manifest: Manifest, directory: Path) -> Unchanged:
    files = [p for p in (Path(manifest.rubric.path), directory / RUBRIC_COPY) if p.is_file()]
    edited = [p for p in files if sha256_file(p) != manifest.rubric.sha256]
    lock = manifest.rubric_lock or legacy_lock(files, edited, directory)
    settings = lock.settings
    for path in edited:  # the source, then the copy: the copy's settings win
        rubric = load_rubric(path)
        if results_sha256(rubric) != lock.results_sha256:
            raise InputError(
                "rubric changed since the run started in what decides its results (criteria, "
                "judges' models or sampling, scoring, seed, prompts); only its operational "
                "settings (timeouts, retries, concurrency, ...) may change on resume; start a "
                "new run instead of resuming",
                path=str(path),
            )
        settings = settings_of(rubric.grader)
    edits = changed_settings(lock.settings, settings)
    return Unchanged(RubricLock(results_sha256=lock.results_sha256, settings=settings), edits)


def legacy_lock(files: list[Path], edited: list[Path], directory: Path) -> RubricLock:
    """The lock of an experiment from before locks: from a file still as the run started."""
    intact = [p for p in files if p not in edited]
    if not intact:
        raise InputError(
            f"rubric {CHANGED} (this experiment predates operational-only edits: its manifest "
            "locks the whole file, and no copy of it is left as it was)",
            path=str(edited[-1] if edited else directory / RUBRIC_COPY),
        )
    return lock_of(load_rubric(intact[-1]))
