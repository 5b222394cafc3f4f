"""A loopback OpenAI chat completions API (`POST {api_base}/chat/completions`, api_base ending
in `/v1`): OpenAI itself through litellm's OpenAI handler, and an OpenAI-compatible server (vLLM,
llama.cpp) through the native transport, which send the same body.

What is OpenAI's (platform.openai.com API reference, Chat Completions): the key as
`Authorization: Bearer` (missing: 401 `invalid_api_key`); `n` asks for that many choices, each
`{index, message, finish_reason}`, and `usage` counts the prompt once and the completion tokens
over every choice. A 429 carries `retry-after-ms` and `retry-after`; an overload is 503 "The
server is overloaded or not ready yet.".
"""

from __future__ import annotations

from aiohttp import web

from tests.support.providers.base import FakeProvider, Seen
from tests.support.providers.faults import Fault, is_error, retry_headers
from tests.support.providers.wire import chat_reply

ERRORS = {
    "rate_limit": (429, "rate_limit_exceeded", "Rate limit reached for requests."),
    "overloaded": (503, "server_error", "The server is overloaded or not ready yet."),
    "server_error": (500, "server_error", "The server had an error processing your request."),
    "bad_request": (400, "invalid_request_error", "Invalid request."),
    "unauthorized": (401, "invalid_api_key", "Incorrect API key provided."),
    "forbidden": (403, "unsupported_country_region_territory", "Request not allowed."),
}


def error(status: int, code: str, message: str, headers: dict[str, str] | None = None):
    body = {"error": {"message": message, "type": code, "param": None, "code": code}}
    return web.json_response(body, status=status, headers=headers)


class OpenAIFake(FakeProvider):
    name = "openai"
    api_base_path = "/v1"

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self.chat)

    async def chat(self, request: web.Request) -> web.Response:
        seen, fault = await self.receive(request)
        if not seen.headers.get("authorization", "").startswith("Bearer "):
            seen.status = 401
            return error(401, "invalid_api_key", "You didn't provide an API key.")
        if is_error(fault):
            assert fault is not None
            return self.fault_reply(seen, fault)
        return web.json_response(chat_reply(self, seen.body, fault, str(seen.body["model"])))

    def fault_reply(self, seen: Seen, fault: Fault) -> web.Response:
        status, code, message = ERRORS[fault.kind]
        seen.status = status
        return error(status, code, message, retry_headers(fault))
