"""Provider batch APIs (SPEC §11): the ledger, the request lines, the transport that collects calls
into batches, one client per provider.
"""
