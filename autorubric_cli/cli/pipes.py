"""A reader that closed our stdout (`autorubric report DIR | head`) is not an error."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator


def drop_stdout() -> None:
    """Send what is left of stdout to /dev/null, so the interpreter's final flush does not
    fail again (and print "Exception ignored ... BrokenPipeError") on the closed pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    with contextlib.suppress(OSError, ValueError):
        os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


@contextlib.contextmanager
def tolerate_closed_stdout() -> Iterator[None]:
    """Output written while the reader stops reading is dropped quietly; the command's exit
    code (a gate verdict, say) stays what it was."""
    try:
        yield
    except BrokenPipeError:
        drop_stdout()
