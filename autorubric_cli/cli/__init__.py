"""The command line (docs/reference/exit-codes.md). Command modules (`*_cmd.py`, loaded with the
app) parse flags; the bodies they call are the names in ``__init__.pyi``, loaded on first use
(docs/design/startup.md), so `--help` loads none of them."""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
