"""The judge call layer: one async path over a native OpenAI-compatible client or litellm,
plus the offline simulated judge.

Nothing here imports litellm at module import time; it is loaded on the first litellm call.

The names in ``__init__.pyi`` are loaded on first use (docs/design/startup.md)."""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
