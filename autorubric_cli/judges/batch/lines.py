"""The OpenAI batch file format: one request per input line, one result per output line.

Pure functions, no I/O: what `bench/batch_cpu.py` measures per request. The request body is what
`litellm.acompletion` sends to an OpenAI-compatible endpoint for our call shape
(`transports/body.py:wire_body`), so a batch line gets the answer the direct call would.
`custom_id` is the call's request key (docs/guides/cache-and-cost.md): the ledger, the cache
and the result lines all speak of a request by it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from autorubric_cli.judges.batch.capture import RawReply
from autorubric_cli.judges.policy.failures import JudgeFailure, classify, http_error
from autorubric_cli.judges.policy.kinds import FailureKind
from autorubric_cli.judges.request import Completion
from autorubric_cli.judges.transports.litellm import reply_choices

ENDPOINT = "/v1/chat/completions"


@dataclass(frozen=True)
class BatchPrice:
    """USD per token at the batch price."""

    prompt: float
    completion: float

    def cost(self, usage: dict[str, int]) -> float:
        return (
            usage.get("prompt_tokens", 0) * self.prompt
            + usage.get("completion_tokens", 0) * self.completion
        )


def batch_line(custom_id: str, body: dict[str, Any]) -> bytes:
    """One input line, newline included."""
    line = {"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": body}
    return orjson.dumps(line) + b"\n"


Result = Completion | RawReply | Exception
"""A batch's answer to one request: parsed already (OpenAI output files), a provider reply for
litellm to read (batch/native.py), or the failure the Judge's retry loop judges."""


def results_by_key(content: bytes, read: Callable[[dict[str, Any]], Result]) -> dict[str, Result]:
    """custom_id -> `read` of its line, for a batch's JSONL results. Unreadable lines are
    skipped: their requests count as unanswered."""
    results: dict[str, Result] = {}
    for raw in content.splitlines():
        try:
            line = orjson.loads(raw)
            results[str(line["custom_id"])] = read(line)
        except (orjson.JSONDecodeError, KeyError, TypeError):
            continue
    return results


def parse_results(
    content: bytes, price: BatchPrice | None, judge_id: str, secret: str | None
) -> dict[str, Result]:
    """custom_id -> a Completion, or the exception the Judge's retry loop judges (output and
    error files alike)."""
    return results_by_key(content, lambda line: line_result(line, price, judge_id, secret))


def line_result(
    line: dict[str, Any], price: BatchPrice | None, judge_id: str, secret: str | None
) -> Result:
    response = line.get("response") or {}
    status = response.get("status_code")
    body = response.get("body") or {}
    if status == 200:
        return completion_of(body, price)
    if isinstance(status, int):
        error = body.get("error") or {}
        message = str(error.get("message") or body or "failed")
        return classify(http_error(status, message, {}), judge_id=judge_id, secret=secret)
    error = line.get("error") or {}
    detail = f"{error.get('code') or 'error'}: {error.get('message') or 'no result'}"
    return JudgeFailure(FailureKind.BATCH, detail)


def completion_of(body: dict[str, Any], price: BatchPrice | None) -> Completion:
    choices = reply_choices(body.get("choices"))
    raw_usage = body.get("usage") or {}
    usage = {
        "prompt_tokens": int(raw_usage.get("prompt_tokens") or 0),
        "completion_tokens": int(raw_usage.get("completion_tokens") or 0),
    }
    return Completion(
        content=choices[0].content,
        reasoning=choices[0].reasoning,
        choices=choices if len(choices) > 1 else (),
        usage=usage,
        cost=None if price is None else price.cost(usage),
        truncated=choices[0].truncated,
    )
