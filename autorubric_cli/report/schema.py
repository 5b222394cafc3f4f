"""The report's JSON Schema, written beside `core/metric_paths.py` so that the pre-flight rules
(below the report layer) can check gate metric paths against the report's shape.

Regenerate after changing report/models.py: `python -m autorubric_cli.report.schema`
(tests/report/test_report_schema.py fails while the file is stale).
"""

from __future__ import annotations

from typing import Any

import orjson

from autorubric_cli.core.metric_paths import SCHEMA_FILE
from autorubric_cli.report.models import Report


def report_schema() -> dict[str, Any]:
    return Report.model_json_schema()


def schema_text() -> bytes:
    return orjson.dumps(report_schema(), option=orjson.OPT_INDENT_2) + b"\n"


if __name__ == "__main__":
    SCHEMA_FILE.write_bytes(schema_text())
