"""`--help` reads like a finished tool's: every option described with its allowed
values, plain metavars, plain usage lines, no references to a document users do not have."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from autorubric_cli.cli.app import app
from autorubric_cli.core.config import (
    BINARY_AGGREGATIONS,
    NOMINAL_AGGREGATIONS,
    ORDINAL_AGGREGATIONS,
    SAMPLE_AGGREGATIONS,
)

PYTHON_TYPE = re.compile(r"<(?:bool|str|int|float|path|list\[[^\]]*\]|[a-z ]+ range)[^>]*>")


def commands(command: Any = None, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple, Any]]:
    command = command or typer.main.get_command(app)
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from commands(sub, (*path, name))


ALL = [path for path, _ in commands()]


def help_text(path: tuple[str, ...], columns: int) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_every_parameter_has_help_and_no_spec_reference() -> None:
    for path, command in commands():
        assert "SPEC" not in (command.help or "") and "§" not in (command.help or ""), path
        ctx = command.make_context("autorubric", [], resilient_parsing=True)
        params = [*command.params, command.get_help_option(ctx)]
        for param in params:
            text = getattr(param, "help", None)
            assert text, (path, param.name)
            assert "SPEC" not in text and "§" not in text, (path, param.name, text)


@pytest.mark.parametrize("columns", [80, 100])
@pytest.mark.parametrize("path", ALL, ids=lambda p: " ".join(p) or "autorubric")
def test_help_shows_plain_metavars_and_usage(path: tuple[str, ...], columns: int) -> None:
    text = help_text(path, columns)
    assert not PYTHON_TYPE.search(text), PYTHON_TYPE.search(text)
    assert "[x>=" not in text and "[x<=" not in text
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert "{" not in usage, usage
    assert "SPEC" not in text and "§" not in text


@pytest.mark.parametrize("columns", [80, 100])
def test_choices_are_listed_whole_words(columns: int) -> None:
    expected = {
        ("run",): ["table", "json", "markdown", "csv", "junit", "html", "per_criterion"],
        ("report",): [
            *BINARY_AGGREGATIONS,
            *ORDINAL_AGGREGATIONS,
            *NOMINAL_AGGREGATIONS,
            *SAMPLE_AGGREGATIONS,
            "skip",
            "zero",
            "partial",
            "fail",
            "exclude",
            "as_unmet",
            "as_category",
        ],
        ("compare",): ["exclude", "as_unmet", "as_category"],
    }
    for path, words in expected.items():
        tokens = set(re.findall(r"[\w-]+", help_text(path, columns)))
        missing = [w for w in words if w not in tokens]
        assert not missing, (path, missing)


def test_report_describes_its_what_if_flags() -> None:
    text = help_text(("report",), 100)
    for flag in ("--ordinal-aggregation", "--nominal-aggregation", "--sample-aggregation"):
        line = next(line for line in text.splitlines() if flag in line)
        assert "What-if" in line, line


def test_resume_concurrency_has_help() -> None:
    text = help_text(("resume",), 100)
    line = next(line for line in text.splitlines() if "--concurrency" in line)
    assert "in-flight" in line, line


@pytest.mark.parametrize("command", ["run", "check"])
def test_the_dataset_help_names_every_format_read(command: str) -> None:
    """Inspect AI logs (`.eval`, `.json`) are datasets too (docs/guides/datasets.md)."""
    text = " ".join(help_text((command,), 200).split())
    assert "JSONL, JSON, CSV, Parquet or an Inspect AI log (.eval or .json)" in text


@pytest.mark.parametrize("command", ["compare", "run"])
def test_fail_on_regression_says_which_p_value(command: str) -> None:
    text = " ".join(help_text((command,), 200).split())
    flag = text[text.index("--fail-on-regression") :]
    assert "the clustered p-value with a cluster key" in flag[:300]
    assert "else Wilcoxon's" in flag[:300]
