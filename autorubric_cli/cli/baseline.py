"""`run/resume --baseline`: the compare flags checked before the run, and the end both commands
share (report, then the comparison, then one exit code).

The comparison's modules (numpy, scipy: about a second) are loaded only when a baseline is
given, and the report's only after the run: `run` and `resume` start their judge worker
processes first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autorubric_cli.cli.compare_body import compare_with_baseline
from autorubric_cli.cli.finish import finish
from autorubric_cli.core.clusters import cluster_path
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.report.compare import CompareOptions, check_options


@dataclass(frozen=True)
class BaselineGate:
    """`--baseline DIR` with the compare gate's options."""

    path: Path
    options: CompareOptions


def baseline_gate(
    baseline: Path | None,
    max_drop: float | None,
    fail_on_regression: bool,
    alpha: float,
    cluster: str | None = None,
) -> BaselineGate | None:
    """The comparison `--baseline` asks for, checked before any judge is called (the
    `--cluster` key's syntax too)."""
    check_cluster_key(cluster)
    if baseline is None:
        if max_drop is not None or fail_on_regression:
            raise InputError("needs --baseline DIR", key="--max-drop/--fail-on-regression")
        return None
    open_experiment(baseline)  # a wrong path fails now, not after a paid run
    options = CompareOptions(max_drop, fail_on_regression, alpha, cluster=cluster)
    check_options(options)
    return BaselineGate(baseline, options)


def check_cluster_key(cluster: str | None) -> None:
    """A malformed `--cluster` is an input error before the run, not after it."""
    if cluster is None:
        return
    try:
        cluster_path(cluster)
    except ValueError as exc:
        raise InputError(str(exc), key="--cluster") from None


def finish_and_compare(
    directory: Path,
    fmt: str,
    fail_under: float | None,
    junit: Path | None,
    gate: BaselineGate | None,
    cluster: str | None = None,
) -> int:
    """The end of `run` and `resume`: the report (written, rendered, gated), then with
    `--baseline` the comparison; the run's exit code, or the combined one."""
    code = finish(directory, fmt, fail_under, junit, compact=True, cluster=cluster)
    if gate is None:
        return code
    return compare_with_baseline(gate.path, directory, gate.options, fmt, junit, code)
