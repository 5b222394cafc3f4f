"""The files and batches endpoints (OpenAI format, docs/guides/batches.md).

Upload, create, retrieve (`in_progress` until `batch_delay` seconds after creation, then
`completed` with output and error files), cancel, list (with metadata). Each batch line is
answered exactly as the chat endpoint would answer its body (faults included), once, when the
batch completes; processed lines are recorded in `stats.requests` with their `batch_id`.
`expire_batches=N` makes the next N batches expire with only their first half processed;
`create_delay` holds the reply to a create after the batch exists (a client killed meanwhile
leaves an orphan).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.support.judge_server.answers import Answerer
from tests.support.judge_server.chat import RecordedRequest, ServerStats, record_of
from tests.support.judge_server.faults import (
    BATCH_STATUSES,
    error_response,
    finish_reason,
)


@dataclass
class StoredFile:
    id: str
    data: bytes
    purpose: str
    filename: str

    def json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "file",
            "bytes": len(self.data),
            "created_at": int(time.time()),
            "filename": self.filename,
            "purpose": self.purpose,
            "status": "processed",
        }


@dataclass
class BatchJob:
    id: str
    input_file_id: str
    endpoint: str
    metadata: dict[str, str]
    created_at: int
    ready_at: float
    expire: bool = False
    status: str = "in_progress"
    output_file_id: str | None = None
    error_file_id: str | None = None
    counts: dict[str, int] = field(
        default_factory=lambda: {"total": 0, "completed": 0, "failed": 0}
    )

    def json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": self.endpoint,
            "errors": None,
            "input_file_id": self.input_file_id,
            "completion_window": "24h",
            "status": self.status,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "created_at": self.created_at,
            "expires_at": self.created_at + 86400,
            "request_counts": self.counts,
            "metadata": self.metadata,
        }


def jsonl(lines: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def expired_line(custom_id: str, code: str) -> dict[str, Any]:
    return {
        "id": f"batch_req_{custom_id}",
        "custom_id": custom_id,
        "response": None,
        "error": {
            "code": code,
            "message": "This request could not be executed before the completion window expired.",
        },
    }


class BatchEndpoints:
    """`JudgeServer`'s files and batches side; attributes are set by `JudgeServer.__init__`."""

    files: dict[str, StoredFile]
    batch_jobs: dict[str, BatchJob]
    batch_delay: float
    expire_batches: int
    create_delay: float
    answer: Answerer
    stats: ServerStats
    _lock: threading.Lock
    # and, from `JudgeServer` and `ChatEndpoints`: requests, _next_fault, _completion

    def batch_routes(self, app: web.Application) -> None:
        for prefix in ("/v1", ""):
            app.router.add_post(f"{prefix}/files", self._upload_file)
            app.router.add_get(f"{prefix}/files/{{file_id}}", self._get_file)
            app.router.add_get(f"{prefix}/files/{{file_id}}/content", self._file_content)
            app.router.add_post(f"{prefix}/batches", self._create_batch)
            app.router.add_get(f"{prefix}/batches", self._list_batches)
            app.router.add_get(f"{prefix}/batches/{{batch_id}}", self._retrieve_batch)
            app.router.add_post(f"{prefix}/batches/{{batch_id}}/cancel", self._cancel_batch)

    @property
    def batch_requests(self) -> list[RecordedRequest]:
        """The batch lines processed so far (each once, when its batch completed)."""
        return [r for r in self.requests if r.batch_id is not None]

    def _store_file(self, data: bytes, purpose: str, filename: str) -> StoredFile:
        with self._lock:
            stored = StoredFile(f"file-{len(self.files) + 1:06d}", data, purpose, filename)
            self.files[stored.id] = stored
        return stored

    async def _upload_file(self, request: web.Request) -> web.Response:
        purpose, data, filename = "batch", b"", "upload.jsonl"
        reader = await request.multipart()
        async for part in reader:
            if part.name == "purpose":
                purpose = (await part.read()).decode()  # type: ignore[union-attr]
            elif part.name == "file":
                filename = part.filename or filename  # type: ignore[union-attr]
                data = bytes(await part.read())  # type: ignore[union-attr]
        return web.json_response(self._store_file(data, purpose, filename).json())

    async def _get_file(self, request: web.Request) -> web.Response:
        stored = self.files.get(request.match_info["file_id"])
        if stored is None:
            return error_response(404, "no such file")
        return web.json_response(stored.json())

    async def _file_content(self, request: web.Request) -> web.Response:
        stored = self.files.get(request.match_info["file_id"])
        if stored is None:
            return error_response(404, "no such file")
        return web.Response(body=stored.data, content_type="application/octet-stream")

    async def _create_batch(self, request: web.Request) -> web.Response:
        body = await request.json()
        if body.get("input_file_id") not in self.files:
            return error_response(400, "input file not found")
        with self._lock:
            expire = self.expire_batches > 0
            self.expire_batches -= expire
            job = BatchJob(
                id=f"batch_{len(self.batch_jobs) + 1:06d}",
                input_file_id=body["input_file_id"],
                endpoint=body.get("endpoint", "/v1/chat/completions"),
                metadata=body.get("metadata") or {},
                created_at=int(time.time()),
                ready_at=time.monotonic() + self.batch_delay,
                expire=expire,
            )
            self.batch_jobs[job.id] = job
        if self.create_delay > 0:  # the batch exists before the client hears of it
            await asyncio.sleep(self.create_delay)
        return web.json_response(job.json())

    def _job(self, batch_id: str) -> BatchJob | None:
        job = self.batch_jobs.get(batch_id)
        running = job is not None and job.status in ("in_progress", "cancelling")
        if running and time.monotonic() >= job.ready_at:  # type: ignore[union-attr]
            self._finish(job)  # type: ignore[arg-type]
        return job

    async def _retrieve_batch(self, request: web.Request) -> web.Response:
        job = self._job(request.match_info["batch_id"])
        if job is None:
            return error_response(404, "no such batch")
        return web.json_response(job.json())

    async def _cancel_batch(self, request: web.Request) -> web.Response:
        job = self._job(request.match_info["batch_id"])
        if job is None:
            return error_response(404, "no such batch")
        if job.status == "in_progress":
            job.status = "cancelling"
        return web.json_response(job.json())

    async def _list_batches(self, request: web.Request) -> web.Response:
        jobs = [self._job(i) for i in reversed(list(self.batch_jobs))]  # newest first
        after = request.query.get("after")
        if after is not None:
            ids = [j.id for j in jobs if j is not None]
            jobs = jobs[ids.index(after) + 1 :] if after in ids else []
        limit = int(request.query.get("limit", "20"))
        page = [j.json() for j in jobs[:limit] if j is not None]
        return web.json_response(
            {
                "object": "list",
                "data": page,
                "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None,
                "has_more": len(jobs) > limit,
            }
        )

    def _finish(self, job: BatchJob) -> None:
        """Answer the batch's lines once: answers to the output file, failures to the error one."""
        with self._lock:
            if job.status not in ("in_progress", "cancelling"):
                return
            cancelled = job.status == "cancelling"
            lines = [json.loads(raw) for raw in self.files[job.input_file_id].data.splitlines()]
            job.status = "finalizing"
        processed = 0 if cancelled else (len(lines) + 1) // 2 if job.expire else len(lines)
        outputs, errors = [], []
        for number, line in enumerate(lines):
            if number >= processed:
                code = "batch_cancelled" if cancelled else "batch_expired"
                if not cancelled:
                    errors.append(expired_line(line["custom_id"], code))
                continue
            status, body = self._batch_answer(job.id, line["body"])
            result = {
                "id": f"batch_req_{job.id}_{number}",
                "custom_id": line["custom_id"],
                "response": {"status_code": status, "request_id": f"req_{number}", "body": body},
                "error": None,
            }
            (outputs if status == 200 else errors).append(result)
        job.counts = {"total": len(lines), "completed": len(outputs), "failed": len(errors)}
        if outputs:
            job.output_file_id = self._store_file(jsonl(outputs), "batch_output", "out.jsonl").id
        if errors:
            job.error_file_id = self._store_file(jsonl(errors), "batch_output", "err.jsonl").id
        job.status = "cancelled" if cancelled else "expired" if job.expire else "completed"

    def _batch_answer(self, batch_id: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """(status code, body) for one batch line, as the chat endpoint would answer it."""
        fault = self._next_fault(body)
        with self._lock:
            self.stats.requests.append(record_of(body, fault, batch_id))
        if fault is not None and fault.kind in BATCH_STATUSES:
            status = fault.status or BATCH_STATUSES[fault.kind]
            return status, {"error": {"message": f"{fault.kind}", "type": "server_error"}}
        return 200, self._completion(body, self._contents(body, fault), finish_reason(fault))
