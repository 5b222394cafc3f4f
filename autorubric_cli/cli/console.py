"""The console every command prints its tables to.

Width: a terminal's own width; otherwise (a pipe, a file, a CI log) `COLUMNS` when it is set,
else 140 columns, so that logs keep whole rows instead of rich's default of 80. A reader that
closes the pipe (`| head`) silences the rest of the output; the exit code is the command's.
"""

from __future__ import annotations

import os

from rich.console import Console

from autorubric_cli.cli.pipes import drop_stdout

PIPED_WIDTH = 140


class OutputConsole(Console):
    def on_broken_pipe(self) -> None:
        """Rich exits with code 1 here; we go on quietly, so the exit code stays ours."""
        self.quiet = True
        drop_stdout()


def output_console() -> OutputConsole:
    console = OutputConsole()
    if not console.is_terminal:
        columns = os.environ.get("COLUMNS", "")
        console.width = int(columns) if columns.isdigit() and int(columns) > 0 else PIPED_WIDTH
    return console
