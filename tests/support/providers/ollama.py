"""A loopback Ollama server (`POST /api/chat`), as litellm 1.106.2 calls it for
`ollama_chat/<model>` with `api_base` (github.com/ollama/ollama docs/api.md, "Generate a chat
completion"; litellm's `llms/ollama/chat/transformation.py`).

Requests: `messages` (OpenAI-like roles), `format` holding the JSON schema, `options`
(`temperature`, ...), `stream: false`, `think` for reasoning models. Replies: `message` with
`content` (and `thinking` when `think` is on), `done: true`, `prompt_eval_count` and
`eval_count` as usage. Errors are `{"error": "..."}`; Ollama's overload is 503 "server busy,
please try again.  maximum pending requests exceeded" (OLLAMA_MAX_QUEUE); it sends no retry hint
of its own, so a 429 here (a proxy in front) carries a plain `Retry-After`. A reply stopped at
`num_predict` says `done_reason: "length"`.

`refuses_schema=True` is an Ollama whose runner cannot turn the schema into a grammar: a
`format` that is an object gets HTTP 500 "invalid JSON schema in format" (`llm/server.go`,
`llama.SchemaToGrammar` returning nothing); `format: "json"` is taken.
"""

from __future__ import annotations

import time
from typing import Any

from aiohttp import web

from tests.support.providers.base import FakeProvider, Seen
from tests.support.providers.faults import Fault, is_error, reply_text, stop_word
from tests.support.providers.wire import tokens

ERRORS = {
    "rate_limit": (429, "too many requests"),
    "overloaded": (503, "server busy, please try again.  maximum pending requests exceeded"),
    "server_error": (500, "llama runner process has terminated: exit status 2"),
    "bad_request": (400, "invalid message format"),
    "unauthorized": (401, "unauthorized"),
    "forbidden": (403, "forbidden"),
}


class OllamaFake(FakeProvider):
    name = "ollama"

    def __init__(self, *, refuses_schema: bool = False, **options: Any) -> None:
        super().__init__(**options)
        self.refuses_schema = refuses_schema

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/api/chat", self.chat)

    async def chat(self, request: web.Request) -> web.Response:
        seen, fault = await self.receive(request)
        if self.refuses_schema and isinstance(seen.body.get("format"), dict):
            seen.status = 500
            return web.json_response({"error": "invalid JSON schema in format"}, status=500)
        if is_error(fault):
            assert fault is not None
            return self.fault_reply(seen, fault)
        body = seen.body
        messages = [
            {"role": m["role"], "content": str(m.get("content", ""))} for m in body["messages"]
        ]
        schema = body.get("format") if isinstance(body.get("format"), dict) else None
        text = self.replied(reply_text(fault, self.answer(messages, schema)))
        message = {"role": "assistant", "content": text}
        if body.get("think"):
            message["thinking"] = self.reasoning
        return web.json_response(
            {
                "model": body.get("model"),
                "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "message": message,
                "done": True,
                "done_reason": stop_word(fault, "stop", "length"),
                "prompt_eval_count": tokens(*(m["content"] for m in messages)),
                "eval_count": tokens(text),
            }
        )

    def fault_reply(self, seen: Seen, fault: Fault) -> web.Response:
        status, message = ERRORS[fault.kind]
        seen.status = status
        headers = {"Retry-After": f"{fault.retry_after:g}"} if fault.kind == "rate_limit" else None
        return web.json_response({"error": message}, status=status, headers=headers)
