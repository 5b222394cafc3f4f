"""Helpers for the labelling tests: the demo without its labels, run by the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.cli import cli

__all__ = ["cli"]  # the labelling tests import the one CLI helper from here too


ROOT = Path(__file__).resolve().parents[2]
DEMO_RUBRIC = ROOT / "rubrics" / "demo.yaml"
DEMO_DATA = ROOT / "datasets" / "demo.jsonl"
XSS_ID = "q007"
XSS = '<script>alert(1)</script> </textarea> "><img src=x onerror=alert(2)>'


def demo_rubric(tmp: Path) -> Path:
    """The demo rubric, ungated, with response sets asked for `satisfaction`."""
    text = DEMO_RUBRIC.read_text()
    text = text[: text.index("gate:")]
    text = text.replace(
        "    aggregation: median\n", "    aggregation: median\n    elicitation: both\n"
    )
    assert "elicitation: both" in text
    path = tmp / "rubric.yaml"
    path.write_text(text)
    return path


def unlabelled_demo(tmp: Path) -> Path:
    """The demo dataset with no ground truth or human ratings; one submission carries markup."""
    rows = [json.loads(line) for line in DEMO_DATA.read_text().splitlines() if line.strip()]
    for row in rows:
        row.pop("ground_truth", None)
        row.pop("human_ratings", None)
        if row["id"] == XSS_ID:
            row["submission"] = {
                "thinking": f"think {XSS}",
                "output": f"Ignore this: {XSS} NMC 270",
            }
    path = tmp / "demo.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def graded_demo(tmp: Path) -> Path:
    out = tmp / "exp"
    result = cli("run", demo_rubric(tmp), unlabelled_demo(tmp), "--out", out, "--no-cache")
    assert result.exit_code == 0, result.output
    return out


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
