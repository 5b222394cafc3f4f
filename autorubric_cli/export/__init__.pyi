"""This package's public face, read by lazy_loader at run time and by mypy.

See docs/design/startup.md.
"""

from .extras import require_extra as require_extra
from .mlflow_run import ExportedRun as ExportedRun
from .mlflow_run import export_mlflow as export_mlflow
from .otel import otel_tracing as otel_tracing
from .switches import run_exports as run_exports
