"""The report (docs/guides/ci.md), its renderers and compare (docs/guides/compare.md)."""
