"""This package's public face, read by lazy_loader at run time and by mypy.

See docs/design/startup.md.
"""

from .build import build_report as build_report
from .compare import (
    CompareOptions as CompareOptions,
)
from .compare import (
    check_options as check_options,
)
from .compare import (
    compare_experiments as compare_experiments,
)
from .html.compare_page import render_compare_html as render_compare_html
from .html.label_page import write_label_html as write_label_html
from .html.page import write_report_html as write_report_html
from .render_table import fmt_cost as fmt_cost
from .render_table import name_column as name_column
