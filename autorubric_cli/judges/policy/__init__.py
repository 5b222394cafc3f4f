"""Call policy: failure classification, retry timing, concurrency limits, adaptive concurrency, the
circuit breaker and the provider facts table.
"""
