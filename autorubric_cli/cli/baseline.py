"""The end `run` and `resume` share: the report (written, rendered, gated), then with
`--baseline` the comparison, then one exit code. The commands import this module after the run
(it loads the report's and the comparison's modules: numpy, scipy); the flags are checked
before it, in cli/baseline_flags.py."""

from __future__ import annotations

from pathlib import Path

from autorubric_cli.cli.baseline_flags import BaselineGate
from autorubric_cli.cli.compare_body import compare_with_baseline
from autorubric_cli.cli.finish import finish


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
