"""A loopback Anthropic API: the Messages endpoint and Message Batches, from Anthropic's public
API reference (shapes as litellm 1.106.2 sends and reads them).

Emulated real behaviour:
- POST /v1/messages: a `message` with a text block (native structured output, `output_format`)
  or a `tool_use` block (litellm's forced `json_tool_call` fallback), `thinking` blocks when
  thinking is on, `usage.input_tokens/output_tokens`. Refusals: no `x-api-key` → 401
  authentication_error; `thinking` with a temperature other than 1 → 400 invalid_request_error
  (the real API's rule); faults as `overloaded` (529 overloaded_error), `server_error` (500
  api_error), `rate_limit` (429 rate_limit_error with `retry-after: 0`).
- POST /v1/messages/batches: requests inline, 1..100,000 of them, unique `custom_id`s matching
  ^[a-zA-Z0-9_-]{1,64}$, a body ≤ 256 MB (else 413 request_too_large); a request using
  `output_format` without the structured-outputs beta on the create call is errored
  (invalid_request_error), as the real API refuses the field without its beta.
- GET /v1/messages/batches/{id}: `processing_status` in_progress until `batch_delay` seconds
  after creation, then ended; `request_counts`; `results_url` once ended.
- POST .../{id}/cancel: canceling, then ended with the unprocessed requests `canceled`.
- Expiry (`expire_batches=N`: the next N batches): ended with the second half `expired`, as a
  batch reaching its 24 h limit ends with its unprocessed requests expired.
- GET .../{id}/results: JSONL, one line per request, keyed by `custom_id`: succeeded (the
  message the Messages endpoint would return), errored (the error body it would return).
- GET /v1/messages/batches: newest first, `limit`, `after_id` paging, `has_more`, `last_id`.
- `create_delay` holds the reply to a create after the batch exists (a client killed meanwhile
  leaves an orphan).
"""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from tests.support.batch_fake import BatchFake, Job, text_of
from tests.support.judge_server import content_hash

CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
STRUCTURED_BETA = "structured-outputs-2025-11-13"
FAULTS = {  # fault kind -> (HTTP status, Anthropic error type)
    "overloaded": (529, "overloaded_error"),
    "server_error": (500, "api_error"),
    "rate_limit": (429, "rate_limit_error"),
}


def iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


def error_body(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


class AnthropicBatchServer(BatchFake):
    fault_kinds = ("overloaded", "server_error")

    @property
    def api_base(self) -> str:
        return self.url

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/messages", self._direct)
        app.router.add_post("/v1/messages/batches", self._create)
        app.router.add_get("/v1/messages/batches", self._list)
        app.router.add_get("/v1/messages/batches/{id}", self._retrieve)
        app.router.add_post("/v1/messages/batches/{id}/cancel", self._cancel)
        app.router.add_get("/v1/messages/batches/{id}/results", self._results)

    # -- the Messages API ------------------------------------------------------------------

    def openai_shaped(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = (
            [{"role": "system", "content": text_of(body["system"])}] if "system" in body else []
        )
        messages += [
            {"role": m["role"], "content": text_of(m["content"])} for m in body["messages"]
        ]
        schema = (body.get("output_format") or {}).get("schema")
        for tool in body.get("tools") or []:
            schema = schema or tool.get("input_schema")
        return {
            "model": body.get("model"),
            "messages": messages,
            "response_format": {"json_schema": {"schema": schema or {}}},
        }

    def reply(
        self, body: dict[str, Any], batch_id: str | None, key: str | None, betas: set[str]
    ) -> tuple[int, dict[str, Any]]:
        """(status, body) the Messages API answers this request with."""
        thinking = (body.get("thinking") or {}).get("type") == "enabled"
        if thinking and body.get("temperature", 1) != 1:
            message = "`temperature` may only be set to 1 when thinking is enabled."
            return 400, error_body("invalid_request_error", message)
        if "output_format" in body and STRUCTURED_BETA not in betas:
            return 400, error_body(
                "invalid_request_error", "output_format: Extra inputs are not permitted"
            )
        fault, text, prompt, completion = self.answered(body, batch_id, key)
        if fault is not None:
            status, kind = FAULTS[fault]
            return status, error_body(kind, f"{fault} (fake)")
        content: list[dict[str, Any]] = []
        if thinking:
            content.append({"type": "thinking", "thinking": "weighing it", "signature": "c2ln"})
        tools = [t for t in body.get("tools") or [] if "output_format" not in body]
        if tools:
            content.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_{prompt}",
                    "name": tools[0]["name"],
                    "input": json.loads(text),
                }
            )
        else:
            content.append({"type": "text", "text": text})
        return 200, {
            "id": f"msg_{content_hash(text) % 10**10}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": content,
            "stop_reason": "tool_use" if tools else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": prompt, "output_tokens": completion},
        }

    async def _direct(self, request: web.Request) -> web.Response:
        if not request.headers.get("x-api-key"):
            return web.json_response(
                error_body("authentication_error", "invalid x-api-key"), status=401
            )
        betas = set(request.headers.get("anthropic-beta", "").split(","))
        status, body = self.reply(await request.json(), None, None, betas)
        headers = {"retry-after": "0"} if status == 429 else None
        return web.json_response(body, status=status, headers=headers)

    # -- Message Batches -------------------------------------------------------------------

    async def _create(self, request: web.Request) -> web.Response:
        self.control_calls["create"] += 1
        if not request.headers.get("x-api-key"):
            return web.json_response(
                error_body("authentication_error", "invalid x-api-key"), status=401
            )
        raw = await request.read()
        if len(raw) > 256 * 1024 * 1024:
            return web.json_response(error_body("request_too_large", "over 256 MB"), status=413)
        requests = json.loads(raw).get("requests") or []
        ids = [r.get("custom_id") for r in requests]
        if (
            not 1 <= len(requests) <= 100_000
            or len(set(ids)) != len(ids)
            or not all(isinstance(i, str) and CUSTOM_ID.match(i) for i in ids)
        ):
            return web.json_response(
                error_body("invalid_request_error", "bad requests"), status=400
            )
        betas = {b.strip() for b in request.headers.get("anthropic-beta", "").split(",")}
        job = self.add_job(
            Job(
                id=self.new_id("msgbatch_"),
                requests=requests,
                created=time.time(),
                ready_at=time.monotonic() + self.batch_delay,
                headers={"betas": ",".join(betas)},
            )
        )
        await self.hold_create()
        return web.json_response(self.batch_json(job))

    def batch_json(self, job: Job) -> dict[str, Any]:
        counts = dict.fromkeys(("processing", "succeeded", "errored", "canceled", "expired"), 0)
        if job.ended:
            for result in job.results:
                counts[result["result"]["type"]] += 1
        else:
            counts["processing"] = len(job.requests)
        status = "ended" if job.ended else "canceling" if job.cancelled else "in_progress"
        return {
            "id": job.id,
            "type": "message_batch",
            "processing_status": status,
            "request_counts": counts,
            "created_at": iso(job.created),
            "ended_at": iso(time.time()) if job.ended else None,
            "expires_at": iso(job.created + 86400),
            "archived_at": None,
            "cancel_initiated_at": iso(job.created) if job.cancelled else None,
            "results_url": f"{self.url}/v1/messages/batches/{job.id}/results"
            if job.ended
            else None,
        }

    def finish(self, job: Job) -> None:
        betas = set(job.headers.get("betas", "").split(","))
        done = self.processed_count(job)
        for number, entry in enumerate(job.requests):
            custom_id = entry["custom_id"]
            if number >= done:
                kind = "canceled" if job.cancelled else "expired"
                job.results.append({"custom_id": custom_id, "result": {"type": kind}})
                continue
            status, body = self.reply(entry["params"], job.id, custom_id, betas)
            result = (
                {"type": "succeeded", "message": body}
                if status == 200
                else {"type": "errored", "error": body}
            )
            job.results.append({"custom_id": custom_id, "result": result})

    async def _retrieve(self, request: web.Request) -> web.Response:
        self.control_calls["retrieve"] += 1
        job = self.job(request.match_info["id"])
        if job is None:
            return web.json_response(error_body("not_found_error", "no such batch"), status=404)
        return web.json_response(self.batch_json(job))

    async def _cancel(self, request: web.Request) -> web.Response:
        job = self.job(request.match_info["id"])
        if job is None:
            return web.json_response(error_body("not_found_error", "no such batch"), status=404)
        if not job.ended:
            job.cancelled = True
        return web.json_response(self.batch_json(job))

    async def _results(self, request: web.Request) -> web.Response:
        self.control_calls["results"] += 1
        job = self.job(request.match_info["id"])
        if job is None or not job.ended:
            return web.json_response(error_body("not_found_error", "no results yet"), status=404)
        lines = b"".join(json.dumps(r).encode() + b"\n" for r in job.results)
        return web.Response(body=lines, content_type="application/binary")

    async def _list(self, request: web.Request) -> web.Response:
        self.control_calls["list"] += 1
        jobs = [self.job(i) for i in reversed(list(self.jobs))]
        after = request.query.get("after_id")
        ids = [j.id for j in jobs if j is not None]
        if after is not None:
            jobs = jobs[ids.index(after) + 1 :] if after in ids else []
        limit = int(request.query.get("limit", "20"))
        page = [self.batch_json(j) for j in jobs[:limit] if j is not None]
        return web.json_response(
            {
                "data": page,
                "has_more": len(jobs) > limit,
                "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None,
            }
        )
