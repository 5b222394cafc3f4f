"""The self-contained HTML report (docs/guides/html-report.md) and the HTML form of `compare`
(docs/guides/compare.md)."""
