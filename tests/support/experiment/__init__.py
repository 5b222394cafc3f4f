"""Helpers shared by the experiment tests and bench/ (engine runs, batches, the call cache)."""
