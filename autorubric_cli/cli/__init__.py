"""The command line (docs/reference/exit-codes.md). Command modules (`*_cmd.py`, loaded with the
app) parse flags; the bodies they call are the names in ``__init__.pyi``, loaded on first use
(docs/design/startup.md), so `--help` loads none of them."""
