"""What every fake shares about the answer: the request seen as OpenAI-style messages plus the
JSON schema asked for, answered by `judge_server.default_answer` (deterministic by content).
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.judge_server import default_answer, word_tokens


def answer_for(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> str:
    """The JSON answer judge_server would give to these messages and this schema."""
    body = {
        "messages": messages,
        "response_format": {"json_schema": {"schema": schema or {}}},
    }
    return default_answer(body)


def answer_object(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> Any:
    return json.loads(answer_for(messages, schema))


def tokens(*texts: str) -> int:
    return sum(word_tokens(t) for t in texts if t)
