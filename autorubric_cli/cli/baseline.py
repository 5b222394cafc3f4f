"""`run/resume --baseline`: the compare flags checked before the run, the comparison after it.

Light to import: the comparison's modules (numpy, scipy: about a second) are loaded only when a
baseline is given, so `run` and `resume` start their judge worker processes first.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from autorubric_cli.errors import InputError

if TYPE_CHECKING:
    from autorubric_cli.report.compare import CompareOptions


def baseline_options(
    baseline: Path | None, max_drop: float | None, fail_on_regression: bool, alpha: float
) -> CompareOptions | None:
    """The compare options for `--baseline`, checked before any judge is called."""
    if baseline is None:
        if max_drop is not None or fail_on_regression:
            raise InputError("needs --baseline DIR", key="--max-drop/--fail-on-regression")
        return None
    from autorubric_cli.experiment.opened import open_experiment
    from autorubric_cli.report.compare import CompareOptions, check_options

    open_experiment(baseline)  # a wrong path fails now, not after a paid run
    options = CompareOptions(max_drop, fail_on_regression, alpha)
    check_options(options)
    return options


def then_compare(
    baseline: Path | None,
    directory: Path,
    options: CompareOptions | None,
    fmt: str,
    junit: Path | None,
    code: int,
) -> int:
    """`run`/`resume`'s exit code, or with --baseline the combined one after comparing."""
    if baseline is None or options is None:
        return code
    from autorubric_cli.cli.compare_cmd import compare_with_baseline

    return compare_with_baseline(baseline, directory, options, fmt, junit, code)
