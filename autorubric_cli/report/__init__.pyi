"""This package's public face, read by lazy_loader at run time and by mypy.

See docs/design/startup.md.
"""

from .build import build_report as build_report
from .build import build_report_and_fold as build_report_and_fold
from .calibrate import calibrate_experiments as calibrate_experiments
from .calibrate import render_calibration_table as render_calibration_table
from .compare import (
    CompareOptions as CompareOptions,
)
from .compare import (
    check_options as check_options,
)
from .compare import compare_exit_code as compare_exit_code
from .compare import (
    compare_experiments as compare_experiments,
)
from .compare import compare_result as compare_result
from .fit import build_table as build_table
from .fit import print_fitted as print_fitted
from .formats import SIMULATED_NOTE as SIMULATED_NOTE
from .formats import dollars as dollars
from .formats import number as number
from .html.calibrate_page import render_calibration_html as render_calibration_html
from .html.compare_page import render_compare_html as render_compare_html
from .html.label_page import write_label_html as write_label_html
from .html.page import write_report_html as write_report_html
from .plan import PlanOptions as PlanOptions
from .plan import plan_comparison as plan_comparison
from .plan import render_plan_text as render_plan_text
from .render_compare import compare_junit_suite as compare_junit_suite
from .render_compare import render_compare_junit as render_compare_junit
from .render_compare import render_compare_markdown as render_compare_markdown
from .render_compare import render_compare_table as render_compare_table
from .render_table import name_column as name_column
from .render_table import render_compact as render_compact
from .render_table import render_tables as render_tables
from .render_text import render_csv as render_csv
from .render_text import render_junit as render_junit
from .render_text import render_markdown as render_markdown
from .validate_columns import DOWNSTREAM_COLUMNS as DOWNSTREAM_COLUMNS
from .validate_columns import FC_COLUMNS as FC_COLUMNS
from .validate_columns import RS_COLUMNS as RS_COLUMNS
