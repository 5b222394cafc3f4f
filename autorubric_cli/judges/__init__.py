"""The judge call layer: one async path over a native OpenAI-compatible client or litellm,
plus the offline simulated judge.

Nothing here imports litellm at module import time; it is loaded on the first litellm call."""
