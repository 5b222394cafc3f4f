"""The command line (docs/reference/exit-codes.md). Command modules (`*_cmd.py`, loaded with the
app) parse flags and import the bodies they call (`check.py`, `finish.py`, `*_body.py`, ...)
inside each Typer command function (docs/design/startup.md), so `--help` loads none of them."""
