"""The `autorubric` command: the Typer app, its global flags and every command
(docs/reference/exit-codes.md).

Each command parses its flags, calls one body and maps the outcome to an exit code. The bodies
are read from the `cli` face (`cli/__init__.pyi`) and the layers below through theirs, so
`--help` loads none of them: see docs/design/startup.md.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
from typing import Annotated

import typer

from autorubric_cli import __version__
from autorubric_cli.cli import (
    compare_cmd,
    pairwise_cmd,
    plan_cmd,
    report_cmd,
    review_cmd,
    run_cmd,
    split_cmd,
    validate_cmd,
)
from autorubric_cli.cli.cache_cmd import cache_app
from autorubric_cli.cli.cascade_cmd import cascade_app
from autorubric_cli.cli.export_cmd import export_app
from autorubric_cli.cli.guard import STATE
from autorubric_cli.cli.help_style import PlainHelpCommand, PlainHelpGroup
from autorubric_cli.cli.label_cmd import label_app
from autorubric_cli.cli.logs import install_warning_handler

app = typer.Typer(
    cls=PlainHelpGroup,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    help="Rubric-based LLM-as-a-judge evaluation: resumable, exact, CI-gated.",
)


def _print_version(value: bool) -> None:
    """--version is eager: it prints and exits before click looks for a command."""
    if value:
        print(f"autorubric {__version__}")
        raise typer.Exit(0)


@app.callback()
def main_callback(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", is_eager=True, callback=_print_version, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    STATE["debug"] = debug
    install_warning_handler()


COMMANDS = (
    run_cmd.check,
    run_cmd.run,
    run_cmd.resume,
    report_cmd.merge,
    report_cmd.report,
    compare_cmd.compare,
    pairwise_cmd.pairwise,
    plan_cmd.plan,
    validate_cmd.validate,
    validate_cmd.simulate,
    review_cmd.review,
    split_cmd.split,
    review_cmd.improve,
)
"""The commands in the order `--help` lists them; each is named after its function."""

for command in COMMANDS:
    app.command(cls=PlainHelpCommand)(command)
app.add_typer(cache_app, name="cache")
app.add_typer(label_app, name="label")
app.add_typer(export_app, name="export")
app.add_typer(cascade_app, name="cascade")


def main() -> None:
    """The console script: the command, then a fast exit.

    After the command, the interpreter would tear down every module and collect every object
    still alive (litellm's tables, a large run's records): seconds with nothing on screen, as
    long after Ctrl-C as after a finished run. Output is flushed and atexit handlers run; the
    process then ends without that teardown.
    """
    try:
        app()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        fast_exit(code)


def fast_exit(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    atexit._run_exitfuncs()
    os._exit(code)
