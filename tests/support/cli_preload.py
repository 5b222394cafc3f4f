"""Imported once by the fork server of `tests.support.cli_process`, never by tests: litellm
(with the environment `load_litellm` sets) and the modules `run`, `resume` and `report` load,
so each forked command starts warm. Nothing here reads the environment at import time."""

from __future__ import annotations

from autorubric_cli.judges.transports.litellm import load_litellm

load_litellm()

import autorubric_cli.cli.app  # noqa: E402, F401
import autorubric_cli.cli.finish  # noqa: E402, F401
import autorubric_cli.experiment.session  # noqa: E402, F401
import autorubric_cli.grading.grader  # noqa: E402, F401
import autorubric_cli.report.build  # noqa: E402, F401
import autorubric_cli.report.render_table  # noqa: E402, F401
import autorubric_cli.report.render_text  # noqa: E402, F401
