"""The environment litellm reads when it is imported: set before anything imports it, litellm
itself or a package that does (MLflow imports litellm to price traces).

Without `LITELLM_LOCAL_MODEL_COST_MAP=True` litellm fetches its price map from a public host at
import: a run must contact no host but its judges', and an offline `mlflow ui` hangs on that
fetch (its import hook and the fetch deadlock). The Anthropic beta-headers config is otherwise
fetched at the first Anthropic call; `LITELLM_MODE=PRODUCTION` stops it loading a `.env` from
the working directory.
"""

from __future__ import annotations

import os

# litellm 1.106.2's own switch (read per call): OpenAI-compatible calls skip the openai SDK's
# request transform; same request bytes, exception classes, status codes and Retry-After
# headers (tests/judges/policy/test_breaker.py checks our classification under it). Measured
# 4.15 -> 3.29 ms CPU/call (docs/design/judge-calls.md). Set it to "false" to opt out.
FAST_HANDLER_ENV = "EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER"
OFFLINE = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "LITELLM_MODE": "PRODUCTION",
}


def offline_litellm_environment() -> None:
    """Set litellm's switches in this process (and so in the processes it starts)."""
    os.environ.update(OFFLINE)
    os.environ.setdefault(FAST_HANDLER_ENV, "true")
