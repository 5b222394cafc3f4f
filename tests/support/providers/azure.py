"""A loopback Azure OpenAI deployment (`POST /openai/deployments/{deployment}/chat/completions
?api-version=...`), as litellm 1.106.2 calls it for `azure/<deployment>` with `api_base` and
`api_version`.

The request and reply are OpenAI chat completions (judge_server answers them); what is Azure's
(learn.microsoft.com, Azure OpenAI REST reference): the deployment in the path, `api-version`
required in the query (missing: 404 "Resource not found"), the key in the `api-key` header (not
`Authorization`; missing: 401 "Access denied due to invalid subscription key"). A 429 carries
both `retry-after` and `retry-after-ms`; Azure's overload is 503 "The service is temporarily
unable to process your request" (a server error, not a named overload).
"""

from __future__ import annotations

from aiohttp import web

from tests.support.providers.base import FakeProvider, Seen
from tests.support.providers.faults import Fault, is_error, retry_headers
from tests.support.providers.wire import chat_reply

ERRORS = {
    "rate_limit": (429, "429", "Requests have exceeded the token rate limit of your tier."),
    "overloaded": (
        503,
        "ServiceUnavailable",
        "The service is temporarily unable to process your request. Please retry later.",
    ),
    "server_error": (500, "InternalServerError", "The server had an error."),
    "bad_request": (400, "BadRequest", "Invalid request."),
    "unauthorized": (401, "401", "Access denied due to invalid subscription key."),
    "forbidden": (403, "403", "Access denied: the key lacks permission for this deployment."),
}


def error(status: int, code: str, message: str, headers: dict[str, str] | None = None):
    return web.json_response(
        {"error": {"code": code, "message": message}}, status=status, headers=headers
    )


class AzureFake(FakeProvider):
    name = "azure"

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/openai/deployments/{deployment}/chat/completions", self.chat)

    async def chat(self, request: web.Request) -> web.Response:
        seen, fault = await self.receive(request)
        if not seen.query.get("api-version"):
            seen.status = 404
            return error(404, "404", "Resource not found")
        if not seen.headers.get("api-key"):
            seen.status = 401
            return error(401, "401", "Access denied due to invalid subscription key.")
        if is_error(fault):
            assert fault is not None
            return self.fault_reply(seen, fault)
        return web.json_response(
            chat_reply(self, seen.body, fault, request.match_info["deployment"])
        )

    def fault_reply(self, seen: Seen, fault: Fault) -> web.Response:
        status, code, message = ERRORS[fault.kind]
        seen.status = status
        return error(status, code, message, retry_headers(fault))
