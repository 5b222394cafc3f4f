"""A minimal loopback Anthropic Messages API (`POST /v1/messages`) with prompt caching.

Written for the prompt-caching tests and bench because the full provider fakes (branch
p22-direct, `tests/support/providers/`) were not merged yet. It reads what litellm 1.106.2
sends for a Claude model (`system` and `messages` as text blocks, `cache_control` on any
block, the schema as native `output_format` or as the forced tool `json_tool_call`), answers
with the same deterministic answers as `JudgeServer` (the body converted to the OpenAI shape),
and bills the prompt through `AnthropicPromptCache`: `input_tokens` (uncached),
`cache_creation_input_tokens`, `cache_read_input_tokens`.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from aiohttp import web

from tests.support.judge_server import JudgeServer, RecordedRequest, word_tokens
from tests.support.prompt_cache import AnthropicPromptCache, content_text

TOOL = "json_tool_call"


def openai_shaped(body: dict[str, Any]) -> dict[str, Any]:
    """The request as the OpenAI-shaped answerers read it: messages and response_format."""
    messages = []
    if body.get("system"):
        messages.append({"role": "system", "content": content_text(body["system"])})
    for message in body.get("messages") or []:
        messages.append({"role": message["role"], "content": content_text(message["content"])})
    schema = (body.get("output_format") or {}).get("schema")
    for tool in body.get("tools") or []:
        if tool.get("name") == TOOL:
            schema = tool.get("input_schema")
    return {
        "model": body.get("model"),
        "messages": messages,
        "response_format": {"json_schema": {"schema": schema or {}}},
    }


class AnthropicCacheServer(JudgeServer):
    """`JudgeServer` that also serves `/v1/messages`, billing through a prompt cache."""

    def __init__(self, cache: AnthropicPromptCache | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.anthropic_cache = cache or AnthropicPromptCache()

    def _app(self) -> web.Application:
        app = super()._app()
        app.router.add_post("/v1/messages", self._messages)
        return app

    @property
    def anthropic_base(self) -> str:
        return self.url

    async def _messages(self, request: web.Request) -> web.Response:
        body = await request.json()
        shaped = openai_shaped(body)
        bill = self.anthropic_cache.lookup(body)  # what the cache held when the call arrived
        record = RecordedRequest(
            model=str(body.get("model")),
            messages=shaped["messages"],
            body=body,
            received_at=time.monotonic(),
            cached_tokens=bill.read,
        )
        self._enter(record)
        try:
            if self.latency > 0:
                await asyncio.sleep(self.latency)
            content = self.answer(shaped)
            prompt = len(self.anthropic_cache.breakpoints(body)[1])  # every block's tokens
            usage = {
                "input_tokens": prompt - bill.read - bill.written,
                "output_tokens": word_tokens(content),
                "cache_creation_input_tokens": bill.written,
                "cache_read_input_tokens": bill.read,
            }
            self.anthropic_cache.store(body)  # visible only once this call has finished
            record.usage = dict(usage)
            record.answered_at = time.monotonic()
            return web.json_response(message_body(body, content, usage))
        finally:
            self._leave()


def message_body(body: dict[str, Any], content: str, usage: dict[str, int]) -> dict[str, Any]:
    if any(t.get("name") == TOOL for t in body.get("tools") or []):
        block = {"type": "tool_use", "id": "toolu_1", "name": TOOL, "input": json.loads(content)}
    else:
        block = {"type": "text", "text": content}
    return {
        "id": f"msg_{time.time_ns()}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model"),
        "content": [block],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": usage,
    }
