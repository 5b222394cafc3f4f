"""What every fake shares about the answer: the request seen as OpenAI-style messages plus the
JSON schema asked for, answered by `judge_server.default_answer` (deterministic by content).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from tests.support.judge_server import completion_body, default_answer, word_tokens
from tests.support.providers.faults import Fault, reply_text, stop_word

if TYPE_CHECKING:
    from tests.support.providers.base import FakeProvider

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


def answer_for(
    messages: list[dict[str, str]], schema: dict[str, Any] | None, choice: int = 0
) -> str:
    """The JSON answer judge_server would give to these messages and this schema (as its
    `choice`-th choice, for a request asking for several)."""
    body = {
        "messages": messages,
        "response_format": {"json_schema": {"schema": with_bounds(schema or {})}},
        "choice": choice,
    }
    return default_answer(body)


def answer_object(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> Any:
    return json.loads(answer_for(messages, schema))


def tokens(*texts: str) -> int:
    return sum(word_tokens(t) for t in texts if t)


def chat_reply(
    fake: FakeProvider, body: dict[str, Any], fault: Fault | None, model: str
) -> dict[str, Any]:
    """An OpenAI chat completion for `body` (Azure's too): a choice per `n` asked, each answered
    by `fake` and noted as replied, all cut off at the token limit under a `truncated` fault;
    the prompt counted once, the completion over the choices."""
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
    asked = body.get("n") if isinstance(body.get("n"), int) else 1
    texts = [
        fake.replied(reply_text(fault, text))
        for text in fake.choice_texts(body["messages"], schema, asked)
    ]
    prompt = tokens(*(str(m.get("content", "")) for m in body["messages"]))
    reasoning = fake.reasoning if "reasoning_effort" in body else None
    finish = stop_word(fault, "stop", "length")
    return completion_body(model, texts, prompt, reasoning, finish)
