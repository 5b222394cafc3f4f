"""What every fake shares about the answer: the request seen as OpenAI-style messages plus the
JSON schema asked for, answered by `judge_server.default_answer` (deterministic by content).
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.support.judge_server import default_answer, word_tokens

BOUND_NOTE = re.compile(r"(minimum|maximum) value: (-?\d+)")


def with_bounds(schema: Any) -> Any:
    """The schema with `minimum`/`maximum` restored where litellm moved them into the
    description ("Note: minimum value: 1, maximum value: 3.", Anthropic's structured output):
    a real model reads that note; judge_server reads the keys."""
    if isinstance(schema, list):
        return [with_bounds(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: with_bounds(v) for k, v in schema.items()}
    for bound, value in BOUND_NOTE.findall(str(schema.get("description", ""))):
        out.setdefault(bound, int(value))
    return out


def answer_for(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> str:
    """The JSON answer judge_server would give to these messages and this schema."""
    body = {
        "messages": messages,
        "response_format": {"json_schema": {"schema": with_bounds(schema or {})}},
    }
    return default_answer(body)


def answer_object(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> Any:
    return json.loads(answer_for(messages, schema))


def tokens(*texts: str) -> int:
    return sum(word_tokens(t) for t in texts if t)
