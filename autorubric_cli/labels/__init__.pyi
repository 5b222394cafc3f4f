"""This package's public face, read by lazy_loader at run time and by mypy.

See docs/design/startup.md.
"""

from .importer import import_labels as import_labels
from .overlay import experiment_overlay as experiment_overlay
from .page_data import plan_labels as plan_labels
