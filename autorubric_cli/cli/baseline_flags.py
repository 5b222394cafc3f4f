"""`run/resume --baseline` and `--fail-under`: the flags checked before the run, before any
judge is called. Nothing here loads the report's or the comparison's modules (numpy, scipy):
the commands import those after the run (cli/baseline.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autorubric_cli.core.clusters import cluster_path
from autorubric_cli.core.metric_paths import unreachable_bound
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.opened import OpenedExperiment, open_experiment
from autorubric_cli.report.compare_options import CompareOptions, check_options


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


def refuse_unreachable(opened: OpenedExperiment, fail_under: float | None) -> None:
    """`--fail-under` above what the experiment's scores can reach is an input error."""
    problem = unreachable_bound("score.mean", fail_under, opened.rubric.grader.normalize)
    if problem is not None:
        raise InputError(problem, key="--fail-under")
