"""A loopback Gemini API (AI Studio): `generateContent` and batch mode, from Google's public
Gemini API reference (shapes as litellm 1.106.2 sends and reads them). `api_base` ends in
`/v1beta`, as litellm expects for the `gemini/` provider.

Emulated real behaviour:
- POST /v1beta/models/M:generateContent: `candidates[0].content.parts[].text` (the JSON asked
  for by `generationConfig.response_json_schema`), `usageMetadata` token counts. Refusals: no
  `x-goog-api-key` → 401 UNAUTHENTICATED; a content part whose only field is an empty text →
  400 INVALID_ARGUMENT ("required oneof field 'data' must have one initialized field"); faults
  as `rate_limit` (429 RESOURCE_EXHAUSTED with a `google.rpc.RetryInfo` of 0 s in the body) and
  `server_error` (500 INTERNAL).
- POST /v1beta/models/M:batchGenerateContent: `batch.displayName` required, requests inline in
  `batch.inputConfig.requests.requests[]` as `{request, metadata: {key}}`, the body ≤ 20 MB
  (else 400); returns the operation `batches/ID` with `metadata.state` BATCH_STATE_PENDING.
- GET /v1beta/batches/ID: BATCH_STATE_RUNNING until `batch_delay` seconds after creation, then
  done: BATCH_STATE_SUCCEEDED with `response.inlinedResponses.inlinedResponses[]` (each the
  GenerateContentResponse or an `error` status with a gRPC code, and the request's metadata),
  `batchStats` counts.
- POST /v1beta/batches/ID:cancel: BATCH_STATE_CANCELLED, no responses.
- Expiry (`expire_batches=N`): BATCH_STATE_EXPIRED with no responses, as a batch pending or
  running past its 48 h ends.
- GET /v1beta/batches: operations newest first, `pageSize`, `pageToken` paging.
- `create_delay` holds the reply to a create after the batch exists (an orphan if the client
  is killed meanwhile).
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from tests.support.batch_fake import BatchFake, Job, text_of

INLINE_LIMIT = 20 * 1024 * 1024
OPERATION_TYPE = "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch"
OUTPUT_TYPE = "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatchOutput"
FAULTS = {"rate_limit": (429, 8, "RESOURCE_EXHAUSTED"), "server_error": (500, 13, "INTERNAL")}
RETRY_INFO = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0s"}


def timestamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


def http_error(status: int, name: str, message: str) -> dict[str, Any]:
    return {"error": {"code": status, "message": message, "status": name}}


class GeminiBatchServer(BatchFake):
    fault_kinds = ("rate_limit", "server_error")

    @property
    def api_base(self) -> str:
        return f"{self.url}/v1beta"

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1beta/models/{call}", self._model_call)
        app.router.add_get("/v1beta/batches", self._list)
        app.router.add_get("/v1beta/batches/{id}", self._retrieve)
        app.router.add_post("/v1beta/batches/{call}", self._cancel)

    # -- generateContent -------------------------------------------------------------------

    def openai_shaped(self, body: dict[str, Any]) -> dict[str, Any]:
        system = body.get("system_instruction") or body.get("systemInstruction")
        messages = [{"role": "system", "content": text_of(system["parts"])}] if system else []
        messages += [
            {
                "role": "assistant" if c.get("role") == "model" else "user",
                "content": text_of(c.get("parts")),
            }
            for c in body.get("contents") or []
        ]
        config = body.get("generationConfig") or {}
        schema = config.get("response_json_schema") or config.get("responseJsonSchema") or {}
        return {
            "model": body.get("model"),
            "messages": messages,
            "response_format": {"json_schema": {"schema": schema}},
        }

    def reply(
        self, body: dict[str, Any], batch_id: str | None, key: str | None
    ) -> tuple[int, dict]:
        """(HTTP status, body) generateContent answers this request with."""
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                if part == {"text": ""}:
                    message = "required oneof field 'data' must have one initialized field"
                    return 400, http_error(400, "INVALID_ARGUMENT", message)
        fault, text, prompt, completion = self.answered(body, batch_id, key)
        if fault is not None:
            status, _, name = FAULTS[fault]
            error = http_error(status, name, f"{fault} (fake)")
            if fault == "rate_limit":
                error["error"]["details"] = [RETRY_INFO]
            return status, error
        return 200, {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": text}]},
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": prompt,
                "candidatesTokenCount": completion,
                "totalTokenCount": prompt + completion,
            },
            "modelVersion": body.get("model", "gemini"),
        }

    async def _model_call(self, request: web.Request) -> web.Response:
        model, _, method = request.match_info["call"].partition(":")
        if not request.headers.get("x-goog-api-key"):
            return web.json_response(http_error(401, "UNAUTHENTICATED", "no key"), status=401)
        if method == "generateContent":
            status, body = self.reply(await request.json(), None, None)
            return web.json_response(body, status=status)
        if method == "batchGenerateContent":
            return await self._create(model, request)
        return web.json_response(http_error(404, "NOT_FOUND", method), status=404)

    # -- batch mode ------------------------------------------------------------------------

    async def _create(self, model: str, request: web.Request) -> web.Response:
        self.control_calls["create"] += 1
        raw = await request.read()
        batch = json.loads(raw).get("batch") or {}
        requests = ((batch.get("inputConfig") or {}).get("requests") or {}).get("requests")
        if len(raw) > INLINE_LIMIT or not batch.get("displayName") or not requests:
            return web.json_response(http_error(400, "INVALID_ARGUMENT", "bad batch"), status=400)
        job = self.add_job(
            Job(
                id=self.new_id("batches/fake"),
                requests=requests,
                created=time.time(),
                ready_at=time.monotonic() + self.batch_delay,
                label=batch["displayName"],
                headers={"model": model},
            )
        )
        await self.hold_create()
        return web.json_response(self.operation(job))

    def state(self, job: Job) -> str:
        if not job.ended:
            return "BATCH_STATE_RUNNING"
        if job.cancelled:
            return "BATCH_STATE_CANCELLED"
        return "BATCH_STATE_EXPIRED" if job.expire else "BATCH_STATE_SUCCEEDED"

    def operation(self, job: Job) -> dict[str, Any]:
        failed = sum("error" in r for r in job.results)
        stats = {
            "requestCount": str(len(job.requests)),
            "successfulRequestCount": str(len(job.results) - failed),
            "failedRequestCount": str(failed),
            "pendingRequestCount": str(0 if job.ended else len(job.requests)),
        }
        operation: dict[str, Any] = {
            "name": job.id,
            "metadata": {
                "@type": OPERATION_TYPE,
                "model": f"models/{job.headers['model']}",
                "displayName": job.label,
                "createTime": timestamp(job.created),
                "updateTime": timestamp(time.time()),
                "batchStats": stats,
                "state": self.state(job),
                "name": job.id,
            },
            "done": job.ended,
        }
        if job.ended and job.results:
            operation["response"] = {
                "@type": OUTPUT_TYPE,
                "inlinedResponses": {"inlinedResponses": job.results},
            }
        return operation

    def finish(self, job: Job) -> None:
        if job.cancelled or job.expire:
            return  # no responses at all
        for entry in job.requests:
            key = (entry.get("metadata") or {}).get("key")
            status, body = self.reply(entry["request"], job.id, key)
            if status == 200:
                job.results.append({"response": body, "metadata": entry.get("metadata")})
            else:
                code = {400: 3, 429: 8}.get(status, 13)
                error = {"code": code, "message": body["error"]["message"]}
                job.results.append({"error": error, "metadata": entry.get("metadata")})

    async def _retrieve(self, request: web.Request) -> web.Response:
        self.control_calls["retrieve"] += 1
        job = self.job(f"batches/{request.match_info['id']}")
        if job is None:
            return web.json_response(http_error(404, "NOT_FOUND", "no such batch"), status=404)
        return web.json_response(self.operation(job))

    async def _cancel(self, request: web.Request) -> web.Response:
        name, _, method = request.match_info["call"].partition(":")
        job = self.job(f"batches/{name}")
        if job is None or method != "cancel":
            return web.json_response(http_error(404, "NOT_FOUND", "no such batch"), status=404)
        if not job.ended:
            job.cancelled = True
            job.ready_at = 0.0
        return web.json_response({})

    async def _list(self, request: web.Request) -> web.Response:
        self.control_calls["list"] += 1
        jobs = [self.job(i) for i in reversed(list(self.jobs))]
        start = int(request.query.get("pageToken") or 0)
        size = int(request.query.get("pageSize", "50"))
        page = [self.operation(j) for j in jobs[start : start + size] if j is not None]
        body: dict[str, Any] = {"operations": page}
        if start + size < len(jobs):
            body["nextPageToken"] = str(start + size)
        return web.json_response(body)
