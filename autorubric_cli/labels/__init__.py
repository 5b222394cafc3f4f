"""Human labels (docs/guides/labels.md): the labelling page's data, the item order, the import and
its validation, and the overlay that lets `report`, `validate` and the HTML report use them.

The names in ``__init__.pyi`` are loaded on first use (docs/design/startup.md)."""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
