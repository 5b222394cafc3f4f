"""Anthropic Message Batches (docs/guides/batches.md), from Anthropic's public API reference.

POST /v1/messages/batches with the requests inline (`{custom_id, params}`; ≤ 100,000 requests
and 256 MB per batch), GET /v1/messages/batches/{id} to poll (`processing_status`:
in_progress, canceling, ended), GET .../{id}/results for the answers (JSONL keyed by
`custom_id`: succeeded with the message, errored with the error body, canceled, expired), GET
/v1/messages/batches to list (newest first, `after_id` pages back). `params` is the body litellm
sends to /v1/messages for the direct call; the `anthropic-beta` values litellm sends with it
(structured outputs) go on the create call, which is where a batch's betas are given.

Orphans: a Message Batch carries no metadata or name of ours, so a batch created just before a
crash (its id unrecorded) is recognised in the listing by what we know of it: created within the
create call's time window after we recorded it, with exactly as many requests, and not a batch
the ledger already knows. One such batch is ours. Several (two of our batches of the same size
created in the same seconds, or someone else's) are told apart by their results' `custom_id`s,
once they have ended.
"""

from __future__ import annotations

import asyncio
import os
from datetime import datetime
from typing import Any

import orjson

from autorubric_cli.judges.batch.api import CLOCK_SKEW_S, FILE_TIMEOUT_S
from autorubric_cli.judges.batch.base import BatchInfo
from autorubric_cli.judges.batch.capture import CapturedRequest, RawReply
from autorubric_cli.judges.batch.ledger import RecordedBatch
from autorubric_cli.judges.batch.lines import Result, results_by_key
from autorubric_cli.judges.batch.native import LIST_PAGE, NativeBatches, reply_failure

API_VERSION = "2023-06-01"
DEFAULT_BASE = "https://api.anthropic.com"
ERROR_STATUS = {  # the HTTP status the Messages API answers with each error type
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


def parse_time(value: Any) -> float:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def info_of(batch: dict[str, Any]) -> BatchInfo:
    state = str(batch.get("processing_status"))
    if state == "ended":
        status = "cancelled" if batch.get("cancel_initiated_at") else "completed"
    else:
        status = {"canceling": "cancelling"}.get(state, state)
    counts = batch.get("request_counts") or {}
    return BatchInfo(
        id=str(batch.get("id")),
        status=status,
        output_file_id=batch.get("results_url"),
        created_at=int(parse_time(batch.get("created_at"))),
        counts={k: int(v) for k, v in counts.items()},
    )


def result_of(batch_id: str, line: dict[str, Any]) -> Result:
    result = line.get("result") or {}
    kind = result.get("type")
    if kind == "succeeded":
        return RawReply(200, result.get("message") or {})
    if kind == "errored":
        body = result.get("error") or {}
        error_type = (body.get("error") or {}).get("type")
        return RawReply(ERROR_STATUS.get(str(error_type), 500), body)
    return reply_failure(batch_id, str(kind))


class AnthropicBatches(NativeBatches):
    provider = "anthropic"
    limits = (100_000, 250 * 1024 * 1024)  # a margin under 256 MB
    key_envs = ("ANTHROPIC_API_KEY",)
    found_by = "listing"  # created in the window with as many requests (module docstring)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.betas: set[str] = set()
        base = (
            self.spec.api_base
            or os.environ.get("ANTHROPIC_API_BASE")
            or os.environ.get("ANTHROPIC_BASE_URL")
            or DEFAULT_BASE
        ).rstrip("/")
        messages = base if base.endswith("/v1/messages") else f"{base}/v1/messages"  # litellm's
        self.url = f"{messages}/batches"

    def auth_headers(self) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION}
        key = self.secret
        if key is not None:
            headers["x-api-key"] = key
        return headers

    def line(self, key: str, request: CapturedRequest) -> bytes:
        betas = request.headers.get("anthropic-beta")
        if betas:
            self.betas.update(b.strip() for b in betas.split(",") if b.strip())
        return orjson.dumps({"custom_id": key, "params": request.body}) + b"\n"

    async def create(self, requests: bytes, local: str) -> BatchInfo:
        headers = {"anthropic-beta": ",".join(sorted(self.betas))} if self.betas else {}
        body = b'{"requests":' + requests + b"}"
        return info_of(
            await self.json("POST", self.url, body=body, headers=headers, timeout=FILE_TIMEOUT_S)
        )

    async def retrieve(self, batch_id: str) -> BatchInfo:
        return info_of(await self.json("GET", f"{self.url}/{batch_id}"))

    async def results(self, info: BatchInfo) -> dict[str, Result]:
        url = info.output_file_id or f"{self.url}/{info.id}/results"
        content = await self.request("GET", url, timeout=FILE_TIMEOUT_S)
        return results_by_key(content, lambda line: result_of(info.id, line))

    async def listed(self, since: float) -> list[BatchInfo]:
        """Batches created since `since`, newest first."""
        found: list[BatchInfo] = []
        params: dict[str, Any] = {"limit": LIST_PAGE}
        while True:
            page = await self.json("GET", self.url, params=params)
            infos = [info_of(b) for b in page.get("data") or []]
            found.extend(i for i in infos if i.created_at >= since)
            if not infos or not page.get("has_more") or infos[-1].created_at < since:
                return found
            params["after_id"] = page.get("last_id") or infos[-1].id

    async def find(self, pending: list[RecordedBatch], known: set[str]) -> dict[str, BatchInfo]:
        since = min(r.prepared_at for r in pending) - CLOCK_SKEW_S
        window = CLOCK_SKEW_S + FILE_TIMEOUT_S * self.attempts  # how long a create may take
        listed = [b for b in await self.listed(since) if b.id not in known]
        candidates = {
            r.local: [
                b
                for b in listed
                if sum(b.counts.values()) == len(r.keys)
                and r.prepared_at - CLOCK_SKEW_S <= b.created_at <= r.prepared_at + window
            ]
            for r in pending
        }
        found: dict[str, BatchInfo] = {}
        for record in pending:
            mine = candidates[record.local]
            shared = any(
                b.id in {c.id for c in candidates[o.local]}
                for b in mine
                for o in pending
                if o is not record
            )
            if len(mine) == 1 and not shared:
                found[record.local] = mine[0]
            elif mine:
                match = await self.by_results(record, mine)
                if match is not None:
                    found[record.local] = match
        return found

    async def by_results(self, record: RecordedBatch, batches: list[BatchInfo]) -> BatchInfo | None:
        """The batch, among look-alikes, whose results answer exactly this record's requests
        (waits for them to end: until then nobody can tell them apart)."""
        for batch in batches:
            info = batch
            while info.status in ("in_progress", "cancelling"):
                await asyncio.sleep(self.poll_s)
                info = await self.retrieve(batch.id)
            if set(await self.results(info)) == set(record.keys):
                return info
        return None
