"""A loopback Anthropic Messages API (`POST /v1/messages`), as litellm 1.106.2 calls it.

Requests are read as the real API reads them (docs.anthropic.com, Messages API; litellm's
`llms/anthropic/chat/transformation.py` for what litellm sends): `system` blocks, `messages`
with text blocks (`cache_control` accepted on any), the schema either as native structured
output (`output_format` + the `anthropic-beta: structured-outputs-...` header, for models
litellm knows to have it) or as the tool `json_tool_call` (other models; forced unless thinking
is on), `thinking: {type: enabled, budget_tokens}` or, for Opus 4.7+, `{type: adaptive,
display}` with `output_config.effort` (litellm translates a budget into that).

Replies: a `thinking` block first when thinking is on (blank for adaptive thinking unless
`display: summarized`, as the real API does), then a `text` block (native) or a
`tool_use` block (tool fallback); usage with `input_tokens` (the prompt less what the cache
read and wrote), `output_tokens` (the answer, plus the thinking when thinking is on),
`cache_creation_input_tokens` and `cache_read_input_tokens`.

Prompt caching (`AnthropicFake(prompt_cache=AnthropicPromptCache())`, tests/support/
prompt_cache.py): a request reads the prefix, ending at a `cache_control` block, that earlier
answered requests wrote (looked up on arrival, so calls sent together all miss) and writes its
own once answered; the prompt is then counted by the cache's tokenizer. Without one, the cache
fields are 0. Each request's `Seen` notes its `usage` and `answered_at`.

Refusals, each the real API's answer (400 `invalid_request_error` unless said otherwise):
- thinking (enabled or adaptive) with a temperature other than 1: "`temperature` may only be
  set to 1 when thinking is enabled" (extended-thinking feature compatibility);
- a temperature other than 1 to a model that removed sampling parameters (Opus 4.7+):
  "`temperature` is deprecated for this model";
- `budget_tokens` under 1,024, or not below `max_tokens`;
- an empty text block anywhere: "messages: text content blocks must be non-empty";
- no `x-api-key`: 401 `authentication_error`.
Faults (faults.py): 429 `rate_limit_error` with a `retry-after` header, 529 `overloaded_error`,
500 `api_error`, 400, 401 `authentication_error`, 403 `permission_error`, prose and empty text.
"""

from __future__ import annotations

import json
import time
from typing import Any

from aiohttp import web

from tests.support.prompt_cache import AnthropicPromptCache, CacheBill
from tests.support.providers.base import FakeProvider, Seen
from tests.support.providers.faults import Fault, is_error, reply_text, stop_word
from tests.support.providers.wire import tokens

TOOL = "json_tool_call"
SAMPLING_REMOVED = ("opus-4-7", "opus-4.7", "opus-4-8", "fable")
ERRORS = {
    "rate_limit": (429, "rate_limit_error", "Number of request tokens has exceeded your limit"),
    "overloaded": (529, "overloaded_error", "Overloaded"),
    "server_error": (500, "api_error", "Internal server error"),
    "bad_request": (400, "invalid_request_error", "messages.0: malformed request"),
    "unauthorized": (401, "authentication_error", "invalid x-api-key"),
    "forbidden": (403, "permission_error", "Your API key does not have permission"),
}


def error(status: int, kind: str, message: str, headers: dict[str, str] | None = None):
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return web.json_response(body, status=status, headers=headers)


def texts(blocks: Any) -> list[str]:
    if isinstance(blocks, str):
        return [blocks]
    return [b.get("text", "") for b in blocks or [] if b.get("type") == "text"]


def as_messages(body: dict[str, Any]) -> list[dict[str, str]]:
    """System and turns as OpenAI-style messages (what judge_server answers from); a turn's
    text blocks read as one text, as the model reads them, so the same prompt split at a
    `cache_control` breakpoint gets the same answer."""
    system = "".join(texts(body.get("system")))
    turns = [{"role": m["role"], "content": "".join(texts(m["content"]))} for m in body["messages"]]
    return ([{"role": "system", "content": system}] if system else []) + turns


def schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    if body.get("output_format"):
        return dict(body["output_format"]["schema"])
    for tool in body.get("tools") or []:
        if tool.get("name") == TOOL:
            return dict(tool["input_schema"])
    return None


def refusal(body: dict[str, Any], headers: dict[str, str]) -> web.Response | None:
    """The real API's 400/401 for a request it will not take; None when it takes it."""
    if not headers.get("x-api-key"):
        return error(401, "authentication_error", "x-api-key header is required")
    thinking = body.get("thinking") or {}
    temperature = body.get("temperature")
    if thinking.get("type") == "adaptive" and temperature not in (None, 1):
        return error(
            400,
            "invalid_request_error",
            "`temperature` may only be set to 1 when thinking is enabled or in adaptive mode.",
        )
    if thinking.get("type") == "enabled":
        if temperature is not None and temperature != 1:
            return error(
                400,
                "invalid_request_error",
                "`temperature` may only be set to 1 when thinking is enabled. Please consult "
                "our documentation at https://docs.claude.com/en/docs/build-with-claude/"
                "extended-thinking#feature-compatibility",
            )
        budget = int(thinking.get("budget_tokens") or 0)
        if budget < 1024:
            return error(
                400,
                "invalid_request_error",
                "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
            )
        if budget >= int(body.get("max_tokens") or 0):
            return error(
                400,
                "invalid_request_error",
                "`max_tokens` must be greater than `thinking.budget_tokens`",
            )
    model = str(body.get("model", ""))
    if temperature not in (None, 1) and any(m in model for m in SAMPLING_REMOVED):
        return error(400, "invalid_request_error", "`temperature` is deprecated for this model.")
    for message in body.get("messages") or []:
        blocks = message.get("content")
        if blocks == "" or any(not t for t in texts(blocks)):
            return error(
                400, "invalid_request_error", "messages: text content blocks must be non-empty"
            )
    return None


class AnthropicFake(FakeProvider):
    name = "anthropic"

    def __init__(self, *, prompt_cache: AnthropicPromptCache | None = None, **options: Any):
        super().__init__(**options)
        self.prompt_cache = prompt_cache

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/messages", self.messages)

    def arrived(self, seen: Seen, fault: Fault | None) -> None:
        """A request the API will answer reads the cache as it was when the request arrived."""
        taken = not is_error(fault) and refusal(seen.body, seen.headers) is None
        if self.prompt_cache is not None and taken:
            seen.bill = self.prompt_cache.lookup(seen.body)

    def usage_for(self, seen: Seen, messages: list[dict[str, str]], output_tokens: int) -> dict:
        """Usage of one reply: the prompt split into uncached, written and read tokens."""
        bill = seen.bill or CacheBill()
        if self.prompt_cache is None:
            prompt = tokens(*(m["content"] for m in messages))
        else:
            prompt = self.prompt_cache.prompt_tokens(seen.body)
        return {
            "input_tokens": prompt - bill.read - bill.written,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": bill.written,
            "cache_read_input_tokens": bill.read,
        }

    async def messages(self, request: web.Request) -> web.Response:
        seen, fault, early = await self.admitted(request, refusal)
        if early is not None:
            return early
        reply = self.reply(seen, fault)
        if self.prompt_cache is not None:
            self.prompt_cache.store(seen.body)  # visible only once this call has been answered
        seen.usage, seen.answered_at = dict(reply["usage"]), time.monotonic()
        return web.json_response(reply)

    def fault_reply(self, seen: Seen, fault: Fault) -> web.Response:
        status, kind, message = ERRORS[fault.kind]
        seen.status = status
        headers = {"retry-after": f"{fault.retry_after:g}"} if fault.kind == "rate_limit" else None
        return error(status, kind, message, headers)

    def reply(self, seen: Seen, fault: Fault | None) -> dict[str, Any]:
        body = seen.body
        messages = as_messages(body)
        schema = schema_of(body)
        text = self.replied(reply_text(fault, self.answer(messages, schema)))
        content: list[dict[str, Any]] = []
        thinking = body.get("thinking") or {}
        if thinking.get("type") in ("enabled", "adaptive"):
            # adaptive thinking (Opus 4.7+) shows its summary only with display "summarized";
            # by default ("omitted") the block comes back blank
            shown = thinking.get("type") == "enabled" or thinking.get("display") == "summarized"
            summary = self.reasoning if shown else ""
            content.append({"type": "thinking", "thinking": summary, "signature": "sig"})
        if schema is not None and not body.get("output_format") and text and _is_json(text):
            content.append(
                {"type": "tool_use", "id": "toolu_01", "name": TOOL, "input": json.loads(text)}
            )
        else:
            content.append({"type": "text", "text": text})
        thought = self.reasoning if content[0]["type"] == "thinking" else ""
        return {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": content,
            "stop_reason": stop_word(
                fault, "tool_use" if content[-1]["type"] == "tool_use" else "end_turn", "max_tokens"
            ),
            "stop_sequence": None,
            "usage": self.usage_for(seen, messages, tokens(text, thought)),
        }


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
