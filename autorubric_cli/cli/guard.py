"""Every command's body runs inside `guarded`: one-line messages and the
docs/reference/exit-codes.md exit code.

Its own module so that every command module (app, cache_cmd, ...) imports it from below,
never from `app` (no import cycle inside `cli`).
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable

import typer

from autorubric_cli.cli.pipes import drop_stdout
from autorubric_cli.errors import BudgetStop, InputError, RunInterrupted, RunStopped, exit_code

STATE = {"debug": False}  # --debug: set by the app's callback, read when a command fails


def _err(message: str) -> None:
    print(f"autorubric: error: {message}", file=sys.stderr)


def guarded(body: Callable[[], int]) -> None:
    """Run a command body, mapping failures to one-line messages and documented exit codes."""
    try:
        code = body()
    except InputError as exc:
        if STATE["debug"]:
            traceback.print_exc()  # then the same one line and exit code as without --debug
        _err(exc.one_line())
        code = exit_code(exc)
    except BrokenPipeError:  # the reader closed stdout (`| head`): not an error of ours
        drop_stdout()
        code = 0
    # a spend-cap stop is its own one line (docs/reference/exit-codes.md)
    except RunStopped as exc:
        _err(str(exc) if isinstance(exc, BudgetStop) else f"run stopped: {exc}")
        code = exit_code(exc)
    except RunInterrupted as exc:
        print(f"autorubric: {exc}", file=sys.stderr)
        code = exit_code(exc)
    except KeyboardInterrupt as exc:
        print("autorubric: interrupted", file=sys.stderr)
        code = exit_code(exc)
    except Exception as exc:
        if STATE["debug"]:
            raise
        _err(f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for a traceback)")
        code = exit_code(exc)
    raise typer.Exit(code)
