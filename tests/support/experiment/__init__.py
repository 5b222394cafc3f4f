"""Helpers shared by the experiment tests and bench/ (runs, batches, the call cache)."""
