"""`compare`'s options and their checks, apart from the comparison itself (numpy, scipy), so
that `run --baseline` checks them before the run without loading what compares."""

from __future__ import annotations

import math
from dataclasses import dataclass

from autorubric_cli.errors import InputError
from autorubric_cli.metrics.ca_mode import CA_MODES

TOP_MOVED = 10


@dataclass(frozen=True)
class CompareOptions:
    max_drop: float | None = None
    fail_on_regression: bool = False
    alpha: float = 0.05
    ca_mode: str = "exclude"
    top: int = TOP_MOVED
    seed: int | None = None  # bootstrap seed; default: BASE's seed
    cluster: str | None = None  # `--cluster metadata.KEY`; default: the rubrics' report.cluster


def check_options(options: CompareOptions) -> None:
    if options.ca_mode not in CA_MODES:
        raise InputError(f"must be one of: {', '.join(CA_MODES)}", key="--ca-mode")
    if not 0.0 < options.alpha < 1.0:
        raise InputError("must be in (0, 1)", key="--alpha")
    if options.max_drop is not None and not (math.isfinite(options.max_drop)):
        raise InputError("must be a finite number", key="--max-drop")
