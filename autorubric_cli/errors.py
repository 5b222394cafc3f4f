"""The error tree: every error autorubric raises on purpose, and the exit code of each.

    AutorubricError                 exit_code
    ├── InputError                  2  bad input or usage: `file:line: key: message`
    │   ├── ValueAt                    a model validator's error naming its key (a ValueError)
    │   ├── StorageError            2  a write failed (full disk, permissions); resume after
    │   └── DirectoryInUse          2  (experiment/lock.py) another writer holds the directory
    ├── JudgeError                  2  a judge could not be used
    │   ├── JudgeAuthError             (judges/policy/failures.py) credentials refused
    │   ├── JudgeUnavailable           (judges/policy/breaker.py) the circuit breaker tripped
    │   ├── WorkerPoolFailed           (judges/transports/workers.py) worker processes keep exiting
    │   └── JudgeFailure               (judges/policy/failures.py) one failed attempt, retried or
    │                                  turned into an error vote; never reaches the CLI; its
    │                                  FailureKind (judges/policy/kinds.py) decides retry, wait,
    │                                  slow-down and breaker count in one table
    ├── RunStopped                  2  the run stopped on a JudgeError; `resume` continues it
    │   └── BudgetStop              2  the run reached its spend cap (--max-cost)
    ├── BudgetReached                  (judges/policy/spend.py) a call refused by the spend cap; the
    │                                  runner turns it into BudgetStop; never reaches the CLI
    ├── DialectChanged                 (judges/judge.py) a judge switched its structured-output
    │                                  dialect while a call waited: the call is built again
    └── RunInterrupted            130  Ctrl-C or SIGTERM; everything finished is kept

`exit_code` maps any exception to the CLI's exit code in one place (docs/reference/exit-codes.md).
"""

from __future__ import annotations

import contextlib
import difflib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import ClassVar

EXIT_OK, EXIT_GATE, EXIT_INPUT, EXIT_ERRORED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_INTERNAL = 70  # a bug: never confused with a gate verdict (1) or bad input (2)


def unknown_name_message(what: str, name: str, allowed: Iterable[str]) -> str:
    """ "unknown key `requirment`; did you mean `requirement`?" when a known name is close."""
    known = list(allowed)
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if close:
        return f"unknown {what} `{name}`; did you mean `{close[0]}`?"
    return f"unknown {what} `{name}` (one of: {', '.join(known)})"


class AutorubricError(Exception):
    """Root of the tree; `exit_code` is what the CLI exits with when this stops a command."""

    exit_code: ClassVar[int] = EXIT_INPUT


class InputError(AutorubricError):
    """Invalid input or usage. Rendered as `file:line: key: message` and exit code 2."""

    def __init__(
        self, message: str, *, path: str | None = None, line: int | None = None, key: str = ""
    ) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.key = key
        super().__init__(self.one_line())

    def one_line(self) -> str:
        where = self.path or ""
        if self.line is not None:
            where = f"{where}:{self.line}"
        parts = [p for p in (where, self.key) if p]
        prefix = ": ".join(parts)
        text = " ".join(self.message.split())
        return f"{prefix}: {text}" if prefix else text


class ValueAt(InputError, ValueError):
    """A model validator's error about one key below the model (`loc`: its path from the file's
    root). pydantic reports it as a value error; the rubric loader points at `loc`."""

    def __init__(self, message: str, loc: tuple[str | int, ...]) -> None:
        super().__init__(message)
        self.loc = loc


class StorageError(InputError, OSError):
    """A write to disk failed: a full disk, a file-size limit, an unwritable directory.

    An InputError (one line, exit 2: the user frees space or fixes permissions and resumes) and
    an OSError (what the failed call raised), so callers that handle either keep working.
    """


class JudgeError(AutorubricError):
    """A judge could not be used (refused credentials, unreachable, failing every call)."""


class RunStopped(AutorubricError):
    """A judge failed in a way retries cannot fix (e.g. authentication); the run stopped."""


class BudgetStop(RunStopped):
    """The run stopped at its spend cap; the message is the one line shown to the user."""


class RunInterrupted(AutorubricError):
    """Ctrl-C or SIGTERM stopped the run; every finished item is kept."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        super().__init__(
            "interrupted: every finished item is kept; report not written (it would take "
            f"seconds): `autorubric report {directory}` renders it; "
            f"finish with: autorubric resume {directory}"
        )


def exit_code(exc: BaseException) -> int:
    """The CLI's exit code for an exception that stopped a command (docs/reference/exit-codes.md):
    the tree's own, 130 for Ctrl-C outside a run, EXIT_INTERNAL for anything else (a bug)."""
    if isinstance(exc, AutorubricError):
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    return EXIT_INTERNAL


@contextlib.contextmanager
def writing(path: str | os.PathLike[str]) -> Iterator[None]:
    """Turn an OSError raised while writing `path` into a one-line StorageError."""
    try:
        yield
    except StorageError:
        raise
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise StorageError(f"cannot write: {reason}", path=str(path)) from None
