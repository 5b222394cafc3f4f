"""`providers.preflight` applied to a rubric file: the first error raised as `file:line: key:`,
the warnings returned as lines (`check` prints them; `run` logs them, rendered by the CLI's one
handler as `autorubric: warning: ...`)."""

from __future__ import annotations

import logging
from pathlib import Path

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.errors import InputError
from autorubric_cli.judges.policy.providers import Problem, preflight
from autorubric_cli.loading.yaml_lines import Path as YamlPath
from autorubric_cli.loading.yaml_lines import dotted, line_for, load_yaml_with_lines

logger = logging.getLogger(__name__)


def check_judges(judges: list[JudgeSpec], rubric_path: Path | None) -> list[str]:
    """Raise the first error as an InputError located in the rubric; return the warnings.

    Judges given with `--judge` are not in the rubric: their problems name the flag."""
    problems = preflight(judges)
    if not problems:
        return []
    lines: dict[YamlPath, int] = {}
    if rubric_path is not None:
        _, lines = load_yaml_with_lines(rubric_path.read_text(encoding="utf-8"), str(rubric_path))
    first = problems[0]
    if first.severity == "error":
        raise InputError(
            first.message,
            path=str(rubric_path) if rubric_path is not None else None,
            line=line_for(first.key, lines) if lines else None,
            key=dotted(first.key) if rubric_path is not None else "--judge",
        )
    return [_warning_line(p, rubric_path, lines) for p in problems]


def _warning_line(problem: Problem, rubric_path: Path | None, lines: dict[YamlPath, int]) -> str:
    if rubric_path is None:
        return f"--judge: {problem.message}"
    line = line_for(problem.key, lines)
    where = f"{rubric_path}:{line}" if line is not None else str(rubric_path)
    return f"{where}: {dotted(problem.key)}: {problem.message}"


def print_warnings(warnings: list[str]) -> None:
    """Each warning through logging, as every layer's warnings go (cli/logs.py renders them)."""
    for warning in warnings:
        logger.warning("%s", warning)
