"""Transports: how a call reaches a provider (litellm, the native OpenAI-compatible client, the
call cache in front, the offline simulated judge, worker processes).
"""
