"""The location of a dataset record, for one-line errors."""

from __future__ import annotations

from autorubric_cli.errors import InputError


class Where:
    def __init__(self, source: str, line: int) -> None:
        self.source, self.line = source, line

    def error(self, message: str, key: str = "") -> InputError:
        return InputError(message, path=self.source, line=self.line, key=key)
