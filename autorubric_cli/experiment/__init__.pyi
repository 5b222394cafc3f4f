"""This package's public face, read by lazy_loader at run time and by mypy.

See docs/design/startup.md.
"""

from .dry_run import dry_run_resume as dry_run_resume
from .dry_run import dry_run_start as dry_run_start
from .lock import lock_early as lock_early
from .lock import writer_active as writer_active
from .manifest import ITEMS as ITEMS
from .manifest import REPORT as REPORT
from .manifest import write_atomic as write_atomic
from .merge import merge_shards as merge_shards
from .opened import open_experiment as open_experiment
from .options import RunOptions as RunOptions
from .preflight import MissingKeyVariable as MissingKeyVariable
from .preflight import preflight as preflight
from .session import (
    JudgeRunStopped as JudgeRunStopped,
)
from .session import (
    resume_run as resume_run,
)
from .session import (
    start_run as start_run,
)
from .store import ReadIssues as ReadIssues
from .store import iter_latest_records as iter_latest_records
