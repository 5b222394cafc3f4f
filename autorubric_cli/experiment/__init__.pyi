"""This package's public face, read by lazy_loader at run time and by mypy.

See docs/design/startup.md.
"""

from .dry_run import dry_run_resume as dry_run_resume
from .dry_run import dry_run_start as dry_run_start
from .lock import lock_early as lock_early
from .manifest import write_atomic as write_atomic
from .opened import open_experiment as open_experiment
from .options import RunOptions as RunOptions
from .session import (
    JudgeRunStopped as JudgeRunStopped,
)
from .session import (
    resume_run as resume_run,
)
from .session import (
    start_run as start_run,
)
