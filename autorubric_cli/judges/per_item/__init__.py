"""One call per item (SPEC §10): the request, its prompt, its reply schema and the judge call."""
