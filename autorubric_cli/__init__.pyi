"""The package root for type checkers: the public names are `autorubric_cli.api`'s `__all__`
(the run-time `__getattr__` in `__init__.py` reads the same list)."""

from autorubric_cli.api import *  # noqa: F403  (the one list of public names)
from autorubric_cli.api import __all__ as __all__

__version__: str
