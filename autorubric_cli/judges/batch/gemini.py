"""Gemini API batch mode (docs/guides/batches.md), from Google's public Gemini API reference.

POST {base}/models/M:batchGenerateContent with the requests inline (`batch.inputConfig.requests
.requests[]`: `{request, metadata: {key}}`; the whole create call ≤ 20 MB), which returns a
long-running operation named `batches/ID`; GET {base}/batches/ID polls it (`metadata.state`:
BATCH_STATE_PENDING, _RUNNING, _SUCCEEDED, _FAILED, _CANCELLED, _EXPIRED); once done its
`response.inlinedResponses.inlinedResponses[]` hold, per request, the GenerateContentResponse or
an error status, with the request's `metadata.key`. GET {base}/batches lists operations
(`pageToken` pages). `request` is the body litellm sends to `models/M:generateContent` for the
direct call.

Inline only, not an uploaded input file: a judge's requests are small, so the 20 MB bound just
splits a large run into more batches, and an inline batch is one call (nothing uploaded and left
behind by a crash). Orphans are found by the batch's `displayName`, `autorubric-<local id>`.
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from autorubric_cli.judges.batch.anthropic import parse_time
from autorubric_cli.judges.batch.api import CLOCK_SKEW_S, FILE_TIMEOUT_S
from autorubric_cli.judges.batch.base import BatchInfo
from autorubric_cli.judges.batch.capture import CapturedRequest, RawReply
from autorubric_cli.judges.batch.ledger import RecordedBatch
from autorubric_cli.judges.batch.lines import Result
from autorubric_cli.judges.batch.native import LIST_PAGE, NativeBatches

DEFAULT_BASE = "https://generativelanguage.googleapis.com/v1beta"
STATES = {
    "PENDING": "in_progress",
    "RUNNING": "in_progress",
    "SUCCEEDED": "completed",
    "FAILED": "failed",
    "CANCELLED": "cancelled",
    "EXPIRED": "expired",
}
GRPC = {  # google.rpc.Code -> (HTTP status, name), as the REST API maps them
    1: (499, "CANCELLED"),
    2: (500, "UNKNOWN"),
    3: (400, "INVALID_ARGUMENT"),
    4: (504, "DEADLINE_EXCEEDED"),
    5: (404, "NOT_FOUND"),
    7: (403, "PERMISSION_DENIED"),
    8: (429, "RESOURCE_EXHAUSTED"),
    9: (400, "FAILED_PRECONDITION"),
    13: (500, "INTERNAL"),
    14: (503, "UNAVAILABLE"),
    16: (401, "UNAUTHENTICATED"),
}


def display_name(local: str) -> str:
    return f"autorubric-{local}"


def info_of(operation: dict[str, Any]) -> BatchInfo:
    metadata = operation.get("metadata") or {}
    state = str(metadata.get("state") or "").rsplit("_", 1)[-1]
    stats = metadata.get("batchStats") or {}
    return BatchInfo(
        id=str(operation.get("name")),
        status=STATES.get(state, "in_progress"),
        metadata={"displayName": str(metadata.get("displayName") or "")},
        created_at=int(parse_time(metadata.get("createTime"))),
        counts={k: int(v) for k, v in stats.items()},
    )


def result_of(inlined: dict[str, Any]) -> RawReply:
    """A request's answer as `generateContent` would have answered it."""
    if "error" not in inlined:
        return RawReply(200, inlined.get("response") or {})
    error = inlined.get("error") or {}
    status, name = GRPC.get(int(error.get("code") or 2), (500, "UNKNOWN"))
    body = {"code": status, "message": str(error.get("message") or name), "status": name}
    if error.get("details"):
        body["details"] = error["details"]
    return RawReply(status, {"error": body})


class GeminiBatches(NativeBatches):
    provider = "gemini"
    limits = (100_000, 19 * 1024 * 1024)  # a margin under the 20 MB of an inline create call
    key_envs = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    found_by = "display_name"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.base = (
            self.spec.api_base or os.environ.get("GEMINI_API_BASE") or DEFAULT_BASE
        ).rstrip("/")
        self.operations: dict[str, dict[str, Any]] = {}  # the last one seen, by batch name

    def auth_headers(self) -> dict[str, str]:
        key = self.secret
        return {} if key is None else {"x-goog-api-key": key}

    def line(self, key: str, request: CapturedRequest) -> bytes:
        return orjson.dumps({"request": request.body, "metadata": {"key": key}}) + b"\n"

    async def create(self, requests: bytes, local: str) -> BatchInfo:
        head = {"batch": {"displayName": display_name(local), "inputConfig": {"requests": {}}}}
        # splice the requests in without re-serialising them: {"requests": {"requests": [...]}}
        body = orjson.dumps(head)[: -len(b"{}}}}")] + b'{"requests":' + requests + b"}}}}"
        url = f"{self.base}/models/{self.model}:batchGenerateContent"
        return self.seen(await self.json("POST", url, body=body, timeout=FILE_TIMEOUT_S))

    def seen(self, operation: dict[str, Any]) -> BatchInfo:
        info = info_of(operation)
        self.operations[info.id] = operation
        return info

    async def retrieve(self, batch_id: str) -> BatchInfo:
        return self.seen(await self.json("GET", f"{self.base}/{batch_id}"))

    async def results(self, info: BatchInfo) -> dict[str, Result]:
        operation = self.operations.get(info.id) or {}
        if not operation.get("done"):
            await self.retrieve(info.id)
            operation = self.operations[info.id]
        inlined = ((operation.get("response") or {}).get("inlinedResponses") or {}).get(
            "inlinedResponses"
        ) or []
        results: dict[str, Result] = {}
        for entry in inlined:
            key = (entry.get("metadata") or {}).get("key") if isinstance(entry, dict) else None
            if key is not None:
                results[str(key)] = result_of(entry)
        return results

    async def find(self, pending: list[RecordedBatch], known: set[str]) -> dict[str, BatchInfo]:
        wanted = {display_name(r.local): r.local for r in pending}
        since = min(r.prepared_at for r in pending) - CLOCK_SKEW_S
        found: dict[str, BatchInfo] = {}
        params: dict[str, Any] = {"pageSize": LIST_PAGE}
        while len(found) < len(wanted):
            page = await self.json("GET", f"{self.base}/batches", params=params)
            infos = [self.seen(op) for op in page.get("operations") or []]
            for info in infos:
                local = wanted.get(info.metadata["displayName"])
                if local is not None and info.id not in known:
                    found[local] = info
            token = page.get("nextPageToken")
            if not infos or not token or min(i.created_at for i in infos) < since:
                break
            params["pageToken"] = token
        return found
