"""autorubric: rubric-based LLM-as-a-judge evaluation that never loses work.

The public names (`from autorubric_cli import run, Report`) are those `autorubric_cli.api`
lists in its `__all__`; this module reads them from there on first use, so importing the
package (as `autorubric --help` does) loads none of them (docs/design/startup.md).
"""

import importlib
import importlib.util
from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """A public name, from `autorubric_cli.api` (loaded now); a submodule not yet imported
    (`from autorubric_cli import errors`) is left to the import system."""
    if importlib.util.find_spec(f"{__name__}.{name}") is None:
        api = importlib.import_module(f"{__name__}.api")
        if name in api.__all__:
            return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
