"""A loopback Gemini API (`POST {api_base}/models/{model}:generateContent`, api_base ending in
`/v1beta`), as litellm 1.106.2 calls it for `gemini/...` models.

Requests as the real API reads them (ai.google.dev API reference, `generateContent`; litellm's
`llms/vertex_ai/gemini/transformation.py`): `contents` of `user`/`model` turns with `parts`,
`system_instruction`, `generationConfig` with `response_json_schema` (or `responseSchema`),
`temperature` and `thinkingConfig {thinkingBudget | thinkingLevel, includeThoughts}`; the key in
the `x-goog-api-key` header.

Replies: one candidate (or `generationConfig.candidateCount` of them, which litellm sends as
`candidate_count`: the API reads either form) whose parts are a thought summary (`thought:
true`, when thoughts are asked for) and the answer text; `usageMetadata` with the prompt count,
the candidates' count over every candidate, and the thoughts count.

Refusals, each the real API's answer:
- a part holding only an empty text: 400 `INVALID_ARGUMENT` "* GenerateContentRequest.contents[i]
  .parts[0].data: required oneof field 'data' must have one initialized field";
- no key: 403 `PERMISSION_DENIED` (the API's answer to a missing key).
Faults (faults.py): 429 `RESOURCE_EXHAUSTED` whose wait is in the body only
(`google.rpc.RetryInfo.retryDelay`, "Ns"; no header), 503 `UNAVAILABLE` "The model is
overloaded. Please try again later.", 500 `INTERNAL`, 400 `INVALID_ARGUMENT`, 401
`UNAUTHENTICATED`, 403 `PERMISSION_DENIED`, prose and empty text.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from tests.support.prompt_cache import ImplicitPromptCache
from tests.support.providers.base import FakeProvider, Seen
from tests.support.providers.faults import Fault, is_error, reply_text, stop_word
from tests.support.providers.wire import tokens

ERRORS = {
    "rate_limit": (429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
    "overloaded": (503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
    "server_error": (500, "INTERNAL", "An internal error has occurred."),
    "bad_request": (400, "INVALID_ARGUMENT", "Request contains an invalid argument."),
    "unauthorized": (401, "UNAUTHENTICATED", "API key not valid. Please pass a valid API key."),
    "forbidden": (403, "PERMISSION_DENIED", "Permission denied on resource."),
}


def error(status: int, code: str, message: str, details: list[dict] | None = None):
    body: dict[str, Any] = {"error": {"code": status, "message": message, "status": code}}
    if details:
        body["error"]["details"] = details
    return web.json_response(body, status=status)


def part_texts(content: dict[str, Any]) -> str:
    return "\n".join(p.get("text", "") for p in content.get("parts") or [] if "text" in p)


def as_messages(body: dict[str, Any]) -> list[dict[str, str]]:
    system = body.get("system_instruction") or body.get("systemInstruction")
    out = [{"role": "system", "content": part_texts(system)}] if system else []
    for content in body.get("contents") or []:
        role = "assistant" if content.get("role") == "model" else "user"
        out.append({"role": role, "content": part_texts(content)})
    return out


def generation(body: dict[str, Any]) -> dict[str, Any]:
    return body.get("generationConfig") or body.get("generation_config") or {}


def schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    config = generation(body)
    for key in ("response_json_schema", "responseJsonSchema", "responseSchema", "response_schema"):
        if config.get(key):
            return dict(config[key])
    return None


def refusal(body: dict[str, Any], headers: dict[str, str]) -> web.Response | None:
    if not headers.get("x-goog-api-key"):
        return error(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers")
    for i, content in enumerate(body.get("contents") or []):
        for j, part in enumerate(content.get("parts") or []):
            if set(part) <= {"text", "thought"} and not part.get("text"):
                return error(
                    400,
                    "INVALID_ARGUMENT",
                    f"* GenerateContentRequest.contents[{i}].parts[{j}].data: required oneof "
                    "field 'data' must have one initialized field",
                )
    return None


class GeminiFake(FakeProvider):
    """`prompt_cache` (tests/support/prompt_cache.py `GeminiPromptCache`): Gemini 2.5's implicit
    caching; a request reads what earlier answered requests left (`cachedContentTokenCount`)."""

    name = "gemini"
    api_base_path = "/v1beta"

    def __init__(self, *, prompt_cache: ImplicitPromptCache | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.prompt_cache = prompt_cache

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1beta/models/{call}", self.generate)

    async def generate(self, request: web.Request) -> web.Response:
        seen, fault = await self.receive(request)
        if not request.match_info["call"].endswith(":generateContent"):
            return error(404, "NOT_FOUND", "method not found")
        refused = refusal(seen.body, seen.headers)
        if refused is not None:
            seen.status = refused.status
            return refused
        if is_error(fault):
            assert fault is not None
            return self.fault_reply(seen, fault)
        cached = self.prompt_cache.lookup(cache_view(seen.body)).read if self.prompt_cache else 0
        reply = self.reply(request.match_info["call"], seen.body, fault)
        if cached:
            reply["usageMetadata"]["cachedContentTokenCount"] = cached
        if self.prompt_cache is not None:
            self.prompt_cache.store(cache_view(seen.body))  # visible once this one answered
        return web.json_response(reply)

    def fault_reply(self, seen: Seen, fault: Fault) -> web.Response:
        status, code, message = ERRORS[fault.kind]
        seen.status = status
        details = None
        if fault.kind == "rate_limit":
            details = [
                {
                    "@type": "type.googleapis.com/google.rpc.RetryInfo",
                    "retryDelay": f"{fault.retry_after:g}s",
                }
            ]
        return error(status, code, message, details)

    def reply(self, call: str, body: dict[str, Any], fault: Fault | None) -> dict[str, Any]:
        messages = as_messages(body)
        config = generation(body)
        asked = config.get("candidateCount") or config.get("candidate_count") or 1
        texts = [
            self.replied(reply_text(fault, text))
            for text in self.choice_texts(messages, schema_of(body), asked)
        ]
        thinking = config.get("thinkingConfig") or {}
        thought = (
            [{"text": self.reasoning, "thought": True}] if thinking.get("includeThoughts") else []
        )
        prompt = tokens(*(m["content"] for m in messages))
        thoughts = tokens(self.reasoning) * len(texts) if thought else 0
        answered = sum(tokens(text) for text in texts)
        usage = {
            "promptTokenCount": prompt,
            "candidatesTokenCount": answered,
            "totalTokenCount": prompt + answered + thoughts,
        }
        if thoughts:
            usage["thoughtsTokenCount"] = thoughts
        candidates = [
            {
                "content": {"role": "model", "parts": [*thought, {"text": text}]},
                "finishReason": stop_word(fault, "STOP", "MAX_TOKENS"),
                "index": index,
            }
            for index, text in enumerate(texts)
        ]
        return {
            "candidates": candidates,
            "usageMetadata": usage,
            "modelVersion": call.split(":")[0],
        }


def cache_view(body: dict[str, Any]) -> dict[str, Any]:
    """The request as the implicit cache reads it: the prompt's messages and the schema."""
    return {"messages": as_messages(body), "response_format": schema_of(body)}
