"""Benchmarks that print figures (speed and cost targets are measured here, never by timed tests).

Run each from the repository root as a module, `python -m bench.NAME [--help]`, so the root is
on `sys.path` and the loopback server is imported as the package `tests.support.judge_server`.
"""
