"""The identity of a judge call (docs/guides/cache-and-cost.md): what the call cache and the batch
ledger key on.

It covers everything sent that can change the answer (model, api base, messages, response
format, temperature, token and thinking limits, pass-through params) and the sample index;
never the API key, timeouts, retries or concurrency. Canonical JSON (sorted keys) so that the
same call always hashes the same, in any process.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.transports.body import thinking_kwargs


def request_key(
    spec: JudgeSpec, messages: list[dict[str, str]], response_format: dict[str, Any], sample: int
) -> str:
    """A SHA-256 hex digest of the call's canonical form."""
    payload = {
        "model": spec.model,
        "api_base": spec.api_base,
        "messages": messages,
        "response_format": response_format,
        "temperature": spec.temperature,
        "max_tokens": spec.max_tokens,
        "thinking": thinking_kwargs(spec.thinking),
        "params": spec.params,
        "sample": sample,
    }
    return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()
