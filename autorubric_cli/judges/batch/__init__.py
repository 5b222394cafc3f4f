"""Provider batch APIs (docs/guides/batches.md): the ledger, the request lines, the transport that
collects calls into batches, one client per provider.
"""
