"""The self-contained HTML report (SPEC §13) and the HTML form of `compare` (SPEC §12)."""
