"""The location of a dataset record, for one-line errors."""

from __future__ import annotations

from autorubric_cli.errors import InputError


class Where:
    """`text_cells`: the record came from a format whose cells are text (CSV, TSV, Parquet), so
    a submission cell holding a JSON conversation is read as one."""

    def __init__(self, source: str, line: int, text_cells: bool = False) -> None:
        self.source, self.line, self.text_cells = source, line, text_cells

    def error(self, message: str, key: str = "") -> InputError:
        return InputError(message, path=self.source, line=self.line, key=key)

    def relocated(self, error: InputError) -> InputError:
        """An error raised without a place (a core rule), placed at this record."""
        return self.error(error.message, key=error.key)
