"""A loopback Bedrock Runtime Converse API (`POST /model/{modelId}/converse`), as litellm
1.106.2 calls it for `bedrock/<modelId>` (and `bedrock/converse/<modelId>`) with
`aws_bedrock_runtime_endpoint` (or `api_base`) pointing here.

Authentication: SigV4 (`Authorization: AWS4-HMAC-SHA256 ...`, `X-Amz-Date`, from dummy
credentials) or a Bedrock API key (`Authorization: Bearer ...`); the signature is accepted
unchecked. No `Authorization` at all: 403 `UnrecognizedClientException`.

Requests (docs.aws.amazon.com, Bedrock Runtime API, Converse; litellm's
`llms/bedrock/chat/converse_transformation.py`): `messages` with `content: [{text}]`, `system`,
`inferenceConfig {temperature, maxTokens}`, the schema as the forced tool `json_tool_call` in
`toolConfig`, Claude's thinking in `additionalModelRequestFields.thinking`. Replies:
`output.message.content` with a `reasoningContent` block (thinking on), then `toolUse` (schema
asked) or `text`; `usage {inputTokens, outputTokens, totalTokens}`.

Refusals, each Bedrock's `ValidationException` (400, `x-amzn-ErrorType` header): a blank text
block ("The text field in the ContentBlock object at messages.N.content.0 is blank"); Claude
thinking with a temperature other than 1 (Anthropic's own text, passed through). Faults: 429
`ThrottlingException` (no retry hint: Bedrock sends none), 503 `ServiceUnavailableException`,
500 `InternalServerException`, 400 `ValidationException`, 401/403 `UnrecognizedClientException`
/ `AccessDeniedException`, prose and empty text.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from tests.support.providers.base import FakeProvider, Seen
from tests.support.providers.faults import Fault, reply_text, stop_word
from tests.support.providers.wire import tokens

TOOL = "json_tool_call"
ERRORS = {
    "rate_limit": (
        429,
        "ThrottlingException",
        "Too many requests, please wait before trying again.",
    ),
    "overloaded": (
        503,
        "ServiceUnavailableException",
        "Bedrock is unable to process your request.",
    ),
    "server_error": (500, "InternalServerException", "The server encountered an internal error."),
    "bad_request": (400, "ValidationException", "Malformed input request."),
    "unauthorized": (
        403,
        "UnrecognizedClientException",
        "The security token included in the request is invalid.",
    ),
    "forbidden": (403, "AccessDeniedException", "You don't have access to the model."),
}


def error(status: int, kind: str, message: str) -> web.Response:
    return web.json_response(
        {"message": message}, status=status, headers={"x-amzn-ErrorType": f"{kind}:http://internal"}
    )


def block_texts(blocks: list[dict[str, Any]]) -> list[str]:
    return [b["text"] for b in blocks or [] if "text" in b]


def as_messages(body: dict[str, Any]) -> list[dict[str, str]]:
    system = "\n".join(block_texts(body.get("system") or []))
    turns = [
        {"role": m["role"], "content": "\n".join(block_texts(m.get("content") or []))}
        for m in body.get("messages") or []
    ]
    return ([{"role": "system", "content": system}] if system else []) + turns


def schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    for tool in (body.get("toolConfig") or {}).get("tools") or []:
        spec = tool.get("toolSpec") or {}
        if spec.get("name") == TOOL:
            return dict(spec["inputSchema"]["json"])
    return None


def thinking_of(body: dict[str, Any]) -> dict[str, Any]:
    return (body.get("additionalModelRequestFields") or {}).get("thinking") or {}


def refusal(body: dict[str, Any], headers: dict[str, str]) -> web.Response | None:
    if not headers.get("authorization"):
        return error(403, "UnrecognizedClientException", "Missing Authentication Token")
    temperature = (body.get("inferenceConfig") or {}).get("temperature")
    if thinking_of(body).get("type") == "enabled" and temperature not in (None, 1):
        return error(
            400,
            "ValidationException",
            "`temperature` may only be set to 1 when thinking is enabled.",
        )
    for i, message in enumerate(body.get("messages") or []):
        for j, block in enumerate(message.get("content") or []):
            if "text" in block and not block["text"].strip():
                return error(
                    400,
                    "ValidationException",
                    f"The text field in the ContentBlock object at messages.{i}.content.{j} is "
                    "blank. Add text to the text field, and try again.",
                )
    return None


class BedrockFake(FakeProvider):
    name = "bedrock"

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/model/{model}/converse", self.converse)

    async def converse(self, request: web.Request) -> web.Response:
        seen, fault, early = await self.admitted(request, refusal)
        if early is not None:
            return early
        return web.json_response(self.reply(seen.body, fault))

    def fault_reply(self, seen: Seen, fault: Fault) -> web.Response:
        status, kind, message = ERRORS[fault.kind]
        seen.status = status
        return error(status, kind, message)

    def reply(self, body: dict[str, Any], fault: Fault | None) -> dict[str, Any]:
        messages = as_messages(body)
        schema = schema_of(body)
        text = self.replied(reply_text(fault, self.answer(messages, schema)))
        content: list[dict[str, Any]] = []
        if thinking_of(body).get("type") == "enabled":
            content.append(
                {"reasoningContent": {"reasoningText": {"text": self.reasoning, "signature": "s"}}}
            )
        if schema is not None and text and _is_json(text):
            content.append(
                {"toolUse": {"toolUseId": "tooluse_01", "name": TOOL, "input": json.loads(text)}}
            )
        else:
            content.append({"text": text})
        prompt, output = tokens(*(m["content"] for m in messages)), tokens(text)
        return {
            "output": {"message": {"role": "assistant", "content": content}},
            "stopReason": stop_word(
                fault, "tool_use" if "toolUse" in content[-1] else "end_turn", "max_tokens"
            ),
            "usage": {
                "inputTokens": prompt,
                "outputTokens": output,
                "totalTokens": prompt + output,
            },
            "metrics": {"latencyMs": 1},
        }


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
