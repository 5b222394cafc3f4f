"""The command bodies, read by lazy_loader at run time and by mypy.

A command module calls `cli.NAME(...)`; the body's module (and what it imports: pydantic, rich,
the report's renderers) loads then, not with `--help`. See docs/design/startup.md.
"""

from .baseline import baseline_gate as baseline_gate
from .baseline import finish_and_compare as finish_and_compare
from .cache_body import dry_run_resume as dry_run_resume
from .cache_body import dry_run_run as dry_run_run
from .cache_body import show_cache_info as show_cache_info
from .cascade_body import run_calibrate as run_calibrate
from .check import run_check as run_check
from .compare_body import run_compare as run_compare
from .export_body import run_exports as run_exports
from .export_body import run_mlflow_export as run_mlflow_export
from .finish import refuse_unreachable as refuse_unreachable
from .finish import run_report as run_report
from .merge_body import run_merge as run_merge
from .plan_body import run_plan as run_plan
from .validate_body import run_simulate as run_simulate
from .validate_body import run_validate as run_validate
