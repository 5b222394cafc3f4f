"""Helpers for the HTML report tests: experiments made by the real CLI, and a page parser."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from autorubric_cli.report.html.items import decode_payload
from tests.support.cli import cli

__all__ = ["cli"]  # the HTML tests import the one CLI helper from here too

ROOT = Path(__file__).resolve().parents[2]
DEMO_RUBRIC = ROOT / "rubrics" / "demo.yaml"
DEMO_DATA = ROOT / "datasets" / "demo.jsonl"
XSS = "<script>alert(1)</script>"


def ungated_demo(tmp_path: Path) -> Path:
    text = DEMO_RUBRIC.read_text()
    path = tmp_path / "demo-ungated.yaml"
    path.write_text(text[: text.index("gate:")])
    return path


def demo_lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DEMO_DATA.read_text().splitlines() if line.strip()]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@dataclass
class Page(HTMLParser):
    """What the structural tests look at: element ids, plots, scripts, links and the items."""

    ids: set[str] = field(default_factory=set)
    plots: list[str] = field(default_factory=list)
    empty_plots: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    script_text: dict[str, str] = field(default_factory=dict)
    _script_id: str | None = None

    def __post_init__(self) -> None:
        super().__init__()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(str(a["id"]))
        if a.get("data-plot"):
            self.plots.append(str(a["data-plot"]))
        if a.get("data-empty-plot"):
            self.empty_plots.append(str(a["data-empty-plot"]))
        for key in ("src", "href"):
            value = a.get(key)
            if value and not value.startswith("#"):
                self.external.append(value)
        if tag == "link":
            self.external.append(str(a))
        self._script_id = str(a["id"]) if tag == "script" and a.get("id") else None

    def handle_data(self, data: str) -> None:
        if self._script_id is not None:
            self.script_text[self._script_id] = self.script_text.get(self._script_id, "") + data

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._script_id = None

    def items(self) -> list[dict[str, Any]]:
        return decode_payload(self.script_text.get("item-data", "").strip())

    def specs(self) -> dict[str, Any]:
        return dict(json.loads(self.script_text.get("plot-specs", "{}")))

    def meta(self) -> dict[str, Any]:
        return dict(json.loads(self.script_text["item-meta"]))


def parse_text(text: str) -> Page:
    page = Page()
    page.feed(text)
    return page


def parse(path: Path) -> Page:
    return parse_text(path.read_text(encoding="utf-8"))
