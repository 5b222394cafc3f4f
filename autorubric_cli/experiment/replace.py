"""`run --replace`: start an experiment directory over (docs/guides/runs.md).

Only a directory that holds an experiment (its manifest.json) is emptied, under its writer lock,
so a wrong `--out` never deletes anything else and a running writer is never pulled from under.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

from autorubric_cli.errors import InputError, writing
from autorubric_cli.experiment.lock import LOCK_FILE, writer_lock
from autorubric_cli.experiment.manifest import MANIFEST, Manifest
from autorubric_cli.experiment.options import RunOptions


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
    """The command that starts the experiment over: `run` with the flags the run was given
    (to edit, e.g. its --judge) and `--out DIR --replace`; shell-quoted."""
    flags = manifest.run_flags or []  # an experiment from before they were recorded: none
    words = ["autorubric", "run", manifest.rubric.path, manifest.dataset.path, *flags]
    return shlex.join([*words, "--out", str(directory), "--replace"])


def word(value: object) -> str:
    """A flag's value as typed: `7`, not `7.0`."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def run_flags(options: RunOptions) -> list[str]:
    """The flags of `run` that decide what is graded and how, as given (not --name/--out,
    --replace, nor the report's: --format, --fail-under, --junit, --baseline, ...)."""
    words = [w for judge in options.judges for w in ("--judge", judge)]
    words += [w for mapping in options.fields for w in ("--field", mapping)]
    valued = {
        "--seed": options.seed,
        "--limit": options.limit,
        "--llm-calls": options.llm_calls,
        "--shard": options.shard,
        "--concurrency": options.concurrency,
        "--timeout": options.timeout,
        "--max-attempts": options.max_attempts,
        "--max-cost": options.max_cost,
        "--cache-dir": options.cache_dir,
    }
    words += [w for flag, value in valued.items() if value is not None for w in (flag, word(value))]
    switches = {"--no-shuffle": options.no_shuffle, "--no-cache": not options.cache}
    return words + [flag for flag, on in {**switches, "--batch": options.batch}.items() if on]
