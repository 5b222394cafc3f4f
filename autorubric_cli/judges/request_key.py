"""The identity of a judge call (docs/guides/cache-and-cost.md): what the call cache and the batch
ledger key on.

It covers everything sent that can change the answer (model, api base, messages, the response
format as the call's dialect sends it, the attempt's temperature (a re-ask's is raised), token
and thinking limits, pass-through params) and the sample index; never the API key, timeouts,
retries or concurrency. Canonical JSON (sorted keys) so that the
same call always hashes the same, in any process.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.policy.providers import attempt_temperature
from autorubric_cli.judges.request import Call
from autorubric_cli.judges.transports.body import reply_format, thinking_kwargs


def request_key(spec: JudgeSpec, call: Call) -> str:
    """A SHA-256 hex digest of the call's canonical form. A call of one sample keys on its
    index, whether it was sent alone or its answer came as one choice of several
    (judges/samples.py stores each choice under its own sample's call); a call asking for
    several samples together keys on the list of them."""
    samples = call.samples
    payload: dict[str, Any] = {
        "model": spec.model,
        "api_base": spec.api_base,
        "messages": call.messages,
        "response_format": reply_format(call.dialect, call.response_format),
        "temperature": attempt_temperature(spec, call.reasks),
        "max_tokens": spec.max_tokens,
        "thinking": thinking_kwargs(spec.thinking),
        "params": spec.params,
        "sample": samples[0] if len(samples) == 1 else list(samples),
    }
    return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()
