"""The HTML pages' templating: the Jinja2 environment (autoescaped), its filters, and the
inlined assets. Light (no numpy): the labelling page imports it without the report's metrics."""

from __future__ import annotations

import math
from functools import cache
from importlib import resources
from typing import Any

import orjson
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from autorubric_cli.report.html.verdict import compare_sentence, gate_headline, inline_code

BOKEH_FILES = ("bokeh.min.js", "bokeh-api.min.js")


def fmt(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def fmt_ci(ci: Any) -> str:
    return "n/a" if not ci else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def fmt_cost(value: float | None) -> str:
    return "n/a" if value is None else f"${value:.4f}"


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("autorubric_cli.report.html", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(num=fmt, ci=fmt_ci, cost=fmt_cost, script_json=script_json, code=inline_code)
    env.globals.update(gate_headline=gate_headline, compare_sentence=compare_sentence)
    return env


@cache
def asset(name: str) -> Markup:
    """A file of assets/, trusted (it is ours), inlined into the page."""
    text = resources.files("autorubric_cli.report.html").joinpath("assets", name).read_text()
    return Markup(text)


@cache
def bokeh_script() -> Markup:
    """BokehJS and its JavaScript plotting API, from the installed bokeh package."""
    js = resources.files("bokeh").joinpath("server", "static", "js")
    return Markup("\n".join(js.joinpath(n).read_text() for n in BOKEH_FILES))


def script_json(value: Any) -> Markup:
    """JSON for a <script type="application/json"> element: `<`, `>`, `&` escaped, so no text
    can close the element; NaN becomes null."""
    text = orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY).decode()
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
