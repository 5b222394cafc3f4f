"""One call per item (docs/guides/per-item.md): the request, its prompt, its reply schema and the
judge call."""
