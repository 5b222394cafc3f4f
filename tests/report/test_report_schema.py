"""The report's JSON Schema beside core/metric_paths.py is the one the report's models give."""

from __future__ import annotations

from autorubric_cli.core.metric_paths import SCHEMA_FILE
from autorubric_cli.report.schema import schema_text


def test_the_schema_file_is_current() -> None:
    assert SCHEMA_FILE.read_bytes() == schema_text(), (
        "report models changed: run `python -m autorubric_cli.report.schema`"
    )
