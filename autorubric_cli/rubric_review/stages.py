"""The stages of `review` and `improve`, each an ordinary experiment in a folder of the output
directory, run through the engine `run` uses (experiment/session.py): the same judges, call
cache, spend cap, checkpoints and records. Nothing here grades.

- A stage whose folder holds a manifest is resumed (its errored items asked again, every good
  vote reused), else started; a finished stage costs nothing to pass through again. So running
  the same command again after an interruption re-pays nothing.
- `--max-cost` caps the whole command: a stage is given the cap minus what the other stages
  (and the reviser's calls, `extra_paid`) have paid.
- The output directory remembers its inputs (`inputs.json`); the same directory with other
  inputs is refused, since its finished stages would answer for inputs they never saw.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import orjson

from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError, RunInterrupted
from autorubric_cli.experiment.budget import paid_so_far
from autorubric_cli.experiment.dry_run import dry_run_resume, dry_run_start
from autorubric_cli.experiment.manifest import ITEMS, MANIFEST, write_atomic
from autorubric_cli.experiment.naming import directory_stem
from autorubric_cli.experiment.opened import OpenedExperiment, open_experiment
from autorubric_cli.experiment.options import RunOptions
from autorubric_cli.experiment.preflight import ALL_SCOPES, preflight
from autorubric_cli.experiment.session import resume_run, start_run

INPUTS = "inputs.json"


class EngineFlags(Protocol):
    """What a command's request says of the engine (`review`, `improve`)."""

    rubric: Path
    out: Path | None
    judges: list[str]
    cache: bool
    cache_dir: Path | None
    max_cost: float | None


def output_directory(command: str, request: EngineFlags, rubric: Rubric) -> Path:
    """`--out`, else `experiments/<command>-<rubric name or stem>-<UTC stamp>`."""
    if request.out is not None:
        return request.out
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Path("experiments") / f"{command}-{directory_stem(rubric, request.rubric)}-{stamp}"


class StageInterrupted(RunInterrupted):
    """Ctrl-C or SIGTERM during a stage: what is finished is kept; the same command continues."""

    def __init__(self, directory: Path, command: str) -> None:
        self.directory = directory
        Exception.__init__(
            self, f"interrupted: every finished call is kept; continue with: {command}"
        )


@dataclass
class Engine:
    """What every stage of one command shares: the judges given on the command line, the call
    cache, the spend cap over all stages, and the command that continues the whole."""

    root: Path
    command: str
    judges: list[str] = field(default_factory=list)
    cache: bool = True
    cache_dir: Path | None = None
    max_cost: float | None = None
    extra_paid: Callable[[], float] = lambda: 0.0

    @classmethod
    def of(
        cls,
        request: EngineFlags,
        root: Path,
        command: str,
        extra_paid: Callable[[], float] | None = None,
    ) -> Engine:
        """The engine of `request` in `root`; `command` is what continues it."""
        return cls(
            root,
            f"{command} --out {root} (the same options)",
            judges=request.judges,
            cache=request.cache,
            cache_dir=request.cache_dir,
            max_cost=request.max_cost,
            extra_paid=extra_paid or (lambda: 0.0),
        )

    def options(self, directory: Path, fields: list[str] | None = None) -> RunOptions:
        return RunOptions(
            judges=list(self.judges),
            out=directory,
            fields=list(fields or []),
            cache=self.cache,
            cache_dir=self.cache_dir,
            max_cost=self.cap(directory),
        )

    def cap(self, directory: Path) -> float | None:
        """The stage's share of `--max-cost`: what the others have not spent."""
        if self.max_cost is None:
            return None
        others = sum(
            paid_so_far(items)
            for items in self.root.rglob(ITEMS)
            if items.parent.resolve() != directory.resolve()
        )
        return max(0.0, self.max_cost - others - self.extra_paid())

    def check(self, rubric: Path, dataset: Path, directory: Path) -> None:
        """Refuse now what the stage would refuse before its first call."""
        if not (directory / MANIFEST).exists():
            preflight(rubric, dataset, self.options(directory), ALL_SCOPES - {"directory"})

    def run(self, rubric: Path, dataset: Path, directory: Path) -> OpenedExperiment:
        """The stage's experiment, graded to the end (started, or resumed with its errored
        items asked again)."""
        with self.continued(directory):
            if (directory / MANIFEST).exists():
                resume_run(
                    directory,
                    retry_errors=True,
                    concurrency=None,
                    cache=self.cache,
                    cache_dir=self.cache_dir,
                    max_cost=self.cap(directory),
                )
            else:
                start_run(rubric, dataset, self.options(directory))
        return open_experiment(directory)

    def bill(self, rubric: Path, dataset: Path, directory: Path) -> dict[str, Any]:
        """The stage's `--dry-run` bill: what is left of it, or all of it."""
        if (directory / MANIFEST).exists():
            return dry_run_resume(
                directory, retry_errors=True, cache=self.cache, cache_dir=self.cache_dir
            )
        return dry_run_start(rubric, dataset, self.options(directory))

    @contextlib.contextmanager
    def continued(self, directory: Path) -> Iterator[None]:
        try:
            yield
        except RunInterrupted:
            raise StageInterrupted(directory, self.command) from None


def check_inputs(root: Path, inputs: dict[str, Any]) -> None:
    """Refuse an output directory that holds the stages of other inputs; remember these."""
    path = root / INPUTS
    if path.is_file():
        held = orjson.loads(path.read_bytes())
        changed = next((k for k in inputs if held.get(k) != inputs[k]), None)
        if changed is not None:
            raise InputError(
                f"holds the work of other inputs ({changed} differs); choose another --out, "
                "or delete the directory to start over",
                path=str(root),
            )
        return
    if root.exists() and not root.is_dir():
        raise InputError("exists and is not a directory", path=str(root), key="--out")
    if root.is_dir() and any(root.iterdir()):
        raise InputError("is not empty and holds no inputs.json of ours", path=str(root))
    root.mkdir(parents=True, exist_ok=True)
    write_atomic(path, orjson.dumps(inputs, option=orjson.OPT_INDENT_2) + b"\n")


@contextlib.contextmanager
def scratch() -> Iterator[Path]:
    """A temporary folder for the inputs a `--dry-run` prices (it writes nothing else)."""
    with tempfile.TemporaryDirectory(prefix="autorubric-dry-") as name:
        yield Path(name)


def total_bill(stages: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The stages' bills and their sum, in the keys of `run --dry-run -f json`."""
    priced = all(b["cost_estimate"] is not None for b in stages.values())
    total = sum(b["calls"]["total"] for b in stages.values())
    cached = sum(b["calls"]["cached"] for b in stages.values())
    return {
        "calls": {"total": total, "cached": cached, "to_send": total - cached},
        "prompt_tokens": sum(b["prompt_tokens"] for b in stages.values()),
        "completion_tokens_estimate": sum(b["completion_tokens_estimate"] for b in stages.values()),
        "cost_estimate": sum(b["cost_estimate"] for b in stages.values()) if priced else None,
        "stages": stages,
    }
