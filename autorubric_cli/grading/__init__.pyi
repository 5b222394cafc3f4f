"""This package's public face, read by lazy_loader at run time and by mypy.

See docs/design/startup.md.
"""

from .few_shot import load_examples as load_examples
from .grader import CriterionGrader as CriterionGrader
from .grader import per_item_builder as per_item_builder
