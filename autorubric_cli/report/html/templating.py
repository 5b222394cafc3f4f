"""The HTML pages' templating: the Jinja2 environment (autoescaped), its filters, and the
inlined assets. Light (no numpy): the labelling page imports it without the report's metrics."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import orjson
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from autorubric_cli.report.compare_words import finding
from autorubric_cli.report.formats import (
    AGREEING_PAIRS,
    CRITERIA_CAPTION,
    NOT_ASSESSED,
    SIMULATED_NOTE,
    WITH_OUTCOME,
    arrow,
    dollars,
    gate_word,
    interval,
    number,
    p_value,
    rate,
)
from autorubric_cli.report.html.verdict import gate_headline, inline_code
from autorubric_cli.report.render_cascade import (
    ESCALATION_HEADER,
    HEADER,
    cascade_rows,
    cascade_summary,
    escalation_rows,
)

BOKEH_FILES = ("bokeh.min.js", "bokeh-api.min.js")


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("autorubric_cli.report.html", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(num=number, ci=interval, cost=dollars, p=p_value, gate=gate_word, rate=rate)
    env.filters.update(arrow=arrow, script_json=script_json, code=inline_code)
    env.globals.update(gate_headline=gate_headline, compare_finding=finding)
    env.globals.update(WITH_OUTCOME=WITH_OUTCOME, AGREEING_PAIRS=AGREEING_PAIRS)
    env.globals.update(SIMULATED_NOTE=SIMULATED_NOTE, NOT_ASSESSED=NOT_ASSESSED)
    env.globals.update(CRITERIA_CAPTION=CRITERIA_CAPTION)
    env.globals.update(cascade_summary=cascade_summary, cascade_rows=cascade_rows)
    env.globals.update(escalation_rows=escalation_rows)
    env.globals.update(CASCADE_HEADER=HEADER, ESCALATION_HEADER=ESCALATION_HEADER)
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
