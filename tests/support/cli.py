"""`cli()`: run `autorubric ARGS` in this process, as a user's shell would, and isolate it.

Every CLI exit-code and output test calls this helper (docs/design/testing.md). It runs the Typer
app through `typer.testing.CliRunner`, so the suite pays litellm's import once per xdist worker
instead of once per command. A subprocess stays only where the process is the point (signals,
SIGKILL, locks held by another process, start-up imports, worker processes).

What a command may change in the process is put back afterwards, so runs do not leak into one
another or into later tests: environment variables, the working directory, SIGINT/SIGTERM
handlers and the wakeup fd, and logging (handlers, levels; a handler created during the run
that writes to the runner's captured streams is dropped).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

# The key the run tests' rubrics name (`api_key_env`) and its value: not a real key, but one
# that looks like one, so tests can prove it never reaches a file.
KEY_ENV = "AUTORUBRIC_TEST_KEY"
KEY_VALUE = "sk-test-SECRET-0123456789abcdefghij"
SIGNALS = (signal.SIGINT, signal.SIGTERM)
# Unset for every command: a CI step summary, and the terminal size pytest-xdist's workers
# export (COLUMNS=80), which would narrow tables that the CLI renders 140 wide off a terminal.
UNSET = ("GITHUB_STEP_SUMMARY", "COLUMNS", "LINES")


@dataclass(frozen=True)
class CliResult:
    """A finished command: its exit code, what it wrote to stdout and to stderr, and both
    interleaved as a terminal would show them (`output`)."""

    exit_code: int
    stdout: str
    stderr: str
    output: str


def cli(
    *args: object,
    env: Mapping[str, str | None] | None = None,
    cwd: Path | None = None,
    stdin: str | None = None,
) -> CliResult:
    """Run `autorubric *args` in-process; `env` adds (or, with None, removes) variables.

    The test judge key is set and the variables in `UNSET` removed, as for the processes the
    suite starts (`tests.support.experiment.runs.cli_env`). Exceptions the CLI does not
    turn into an exit code propagate (a bug shows its traceback instead of hiding in
    `exit_code`).
    """
    from autorubric_cli.cli.app import app
    from autorubric_cli.judges.transports.litellm import load_litellm

    # Imported before the runner swaps sys.stderr, so litellm's log handlers bind the real one.
    load_litellm()
    variables: dict[str, str | None] = {KEY_ENV: KEY_VALUE, **{name: None for name in UNSET}}
    variables.update(env or {})
    runner = CliRunner()
    with _isolated(cwd):
        result = runner.invoke(
            app,
            [str(a) for a in args],
            input=stdin,
            env=variables,
            catch_exceptions=False,
            prog_name="autorubric",
        )
    return CliResult(result.exit_code, result.stdout, result.stderr, result.output)


@contextlib.contextmanager
def _isolated(cwd: Path | None) -> Iterator[None]:
    environ = dict(os.environ)
    directory = Path.cwd()
    handlers = {sig: signal.getsignal(sig) for sig in SIGNALS}
    wakeup_fd = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(wakeup_fd)
    loggers = _logging_state()
    if cwd is not None:
        os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(directory)
        os.environ.clear()
        os.environ.update(environ)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        signal.set_wakeup_fd(wakeup_fd)
        _restore_logging(loggers)


def _all_loggers() -> dict[str, logging.Logger]:
    found = {
        name: logger
        for name, logger in logging.root.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }
    return {"": logging.getLogger(), **found}


def _logging_state() -> dict[str, tuple[list[logging.Handler], int, bool, bool]]:
    return {
        name: (list(logger.handlers), logger.level, logger.propagate, logger.disabled)
        for name, logger in _all_loggers().items()
    }


def _restore_logging(state: dict[str, Any]) -> None:
    for name, logger in _all_loggers().items():
        if name in state:
            logger.handlers[:], logger.level, logger.propagate, logger.disabled = state[name]
            continue
        logger.handlers[:] = [h for h in logger.handlers if not _writes_to_a_captured_stream(h)]


def _writes_to_a_captured_stream(handler: logging.Handler) -> bool:
    stream = getattr(handler, "stream", None)
    plain_stream = isinstance(handler, logging.StreamHandler) and not isinstance(
        handler, logging.FileHandler
    )
    return plain_stream and stream not in (sys.__stderr__, sys.__stdout__)
