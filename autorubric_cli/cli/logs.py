"""Warnings from every layer go through `logging` (logger `autorubric_cli.*`); the CLI renders
them with one handler as `autorubric: warning: ...` on the standard error of the moment."""

from __future__ import annotations

import logging
import sys
from typing import TextIO

PACKAGE_LOGGER = "autorubric_cli"


class _CurrentStderr(logging.StreamHandler[TextIO]):
    """Writes to `sys.stderr` as it is when a record is emitted (a test runner or a caller
    that swaps it sees the warnings), never to the stream that was current at start-up."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, _value: TextIO) -> None:
        pass


class _Format(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"autorubric: {record.levelname.lower()}: {record.getMessage()}"


def install_warning_handler() -> None:
    """Once per process: WARNING and above from `autorubric_cli.*` as one line each."""
    logger = logging.getLogger(PACKAGE_LOGGER)
    if any(isinstance(h, _CurrentStderr) for h in logger.handlers):
        return
    handler = _CurrentStderr()
    handler.setLevel(logging.WARNING)
    handler.setFormatter(_Format())
    logger.addHandler(handler)
