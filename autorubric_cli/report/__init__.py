"""The report (docs/guides/ci.md), its renderers and compare (docs/guides/compare.md).

The names in ``__init__.pyi`` are loaded on first use (docs/design/startup.md)."""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
