"""`autorubric compare` and `run/resume --baseline`: compare, render, write outputs, exit code."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree as ET

from autorubric_cli.cli.finish import append_step_summary, wide_console
from autorubric_cli.core.json_model import to_json
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.manifest import write_atomic
from autorubric_cli.report.compare import compare_exit_code, compare_result
from autorubric_cli.report.compare_options import CompareOptions
from autorubric_cli.report.html.compare_page import render_compare_html
from autorubric_cli.report.models_compare import CompareResult
from autorubric_cli.report.render_compare import (
    compare_junit_suite,
    render_compare_junit,
    render_compare_markdown,
    render_compare_table,
)

COMPARE_JSON = "compare.json"
COMPARE_HTML = "compare.html"


def _json(result: CompareResult) -> str:
    return to_json(result).decode() + "\n"


def _table(result: CompareResult) -> str:
    render_compare_table(result, wide_console())
    return ""


def _markdown(result: CompareResult) -> str:
    return render_compare_markdown(result)


def _junit(result: CompareResult) -> str:
    return render_compare_junit(result)


RENDERERS: dict[str, Callable[[CompareResult], str]] = {
    "table": _table,
    "json": _json,
    "markdown": _markdown,
    "junit": _junit,
}
"""Format name → renderer of the docs/guides/compare.md comparison."""


def write_outputs(result: CompareResult, junit: Path | None) -> None:
    """The JUnit file and the GitHub step summary, when asked for."""
    if junit is not None:
        junit.write_text(render_compare_junit(result))
    append_step_summary(render_compare_markdown(result))


def write_compare_html(result: CompareResult, path: Path) -> str:
    """`compare --format html`: one self-contained page (docs/guides/html-report.md); returns the
    line to print."""
    try:
        write_atomic(path, render_compare_html(result).encode("utf-8"))
    except OSError as exc:
        raise InputError(f"cannot write the HTML page: {exc.strerror}", path=str(path)) from None
    return f"{path}\n"


def run_compare(
    base: Path,
    new: Path,
    options: CompareOptions,
    fmt: str,
    junit: Path | None,
    output: Path | None = None,
) -> int:
    if output is not None and fmt != "html":
        raise InputError("goes with --format html", key="--output")
    result = compare_result(base, new, options)
    write_outputs(result, junit)
    if fmt == "html":
        sys.stdout.write(write_compare_html(result, output or new / COMPARE_HTML))
    else:
        sys.stdout.write(RENDERERS[fmt](result))
    return compare_exit_code(result)


def add_to_junit(path: Path, result: CompareResult) -> None:
    """Put the comparison's suite beside the run's in one <testsuites> file."""
    run_suite = ET.fromstring(path.read_text())
    suites = ET.Element("testsuites")
    suites.extend([run_suite, compare_junit_suite(result)])
    path.write_text(ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n")


def compare_with_baseline(
    baseline: Path,
    directory: Path,
    options: CompareOptions,
    fmt: str,
    junit: Path | None,
    run_code: int,
) -> int:
    """After `run`/`resume --baseline`: write <dir>/compare.json, render, combine exit codes.

    The run's own report was rendered first; table and markdown output go on with the
    comparison (json, csv and junit stdout stay one document: read compare.json). The JUnit
    file gets the comparison's suite too. The combined code is 1 if either gate failed, else
    3 if this run (NEW) had errored items, else 0: the baseline's errors are a warning.
    """
    result = compare_result(baseline, directory, options)
    write_atomic(directory / COMPARE_JSON, _json(result).encode())
    write_outputs(result, None)
    if junit is not None:
        add_to_junit(junit, result)
    if fmt in ("table", "markdown"):
        sys.stdout.write(RENDERERS[fmt](result))  # with its warnings
    else:  # stdout is the run's one document: the comparison's warnings go to stderr
        for warning in result.warnings:
            print(f"autorubric: compare warning: {warning}", file=sys.stderr)
    code = compare_exit_code(result)
    return 1 if 1 in (code, run_code) else 3 if 3 in (code, run_code) else 0
