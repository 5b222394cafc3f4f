"""A scriptable OpenAI-compatible judge server on 127.0.0.1 for tests and benchmarks.

`JudgeServer` runs an aiohttp app in a background thread with its own event loop, so both
in-process async tests and subprocesses (through `api_base`) can call it. `JudgeServerProcess`
runs the same server in a separate process (benchmarks measure client CPU alone).

Answers are a deterministic function of the request content (a hash of the messages), so a
resumed run gets the same answers whatever the request order. Faults come from an explicit
script (`script(...)`, consumed in arrival order) or by rate: the k-th request with a given
content faults iff hash(fault_seed, content, k) falls under `fault_rate`, which is again
independent of request order. Response-set schemas (`selected_options`) are answered too.

The OpenAI files and batches endpoints are served too (SPEC §11): upload, create, retrieve
(`in_progress` until `batch_delay` seconds after creation, then `completed` with output and error
files), cancel, list (with metadata). Each batch line is answered exactly as the chat endpoint
would answer its body (faults included), once, when the batch completes; processed lines are
recorded in `stats.requests` with their `batch_id`. `expire_batches=N` makes the next N batches
expire with only their first half processed; `create_delay` holds the reply to a create after the
batch exists (a client killed meanwhile leaves an orphan).
`concurrency_limit=N` answers 429 (with `Retry-After: retry_after`) to a request that arrives
while N are in flight, as a provider's rate limit does; `port` binds a fixed port, so a test can
stop the server and start it again where the client expects it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import multiprocessing
import re
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

from tests.support.prompt_cache import ImplicitPromptCache
from tests.support.shared_reply import asked_properties

FaultKind = Literal[
    "rate_limit",
    "server_error",
    "hang",
    "malformed",
    "out_of_range",
    "unauthorized",
    "bad_request",
    "not_found",
]
FAULT_KINDS: tuple[str, ...] = FaultKind.__args__  # type: ignore[attr-defined]
Answerer = Callable[[dict[str, Any]], str]
OPTION_LINE = re.compile(r"^(\d+)\. ", re.MULTILINE)


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour; `retry_after` (seconds) is sent with `rate_limit`."""

    kind: FaultKind
    retry_after: float | None = None
    status: int | None = None


@dataclass
class RecordedRequest:
    model: str
    messages: list[dict[str, Any]]
    body: dict[str, Any]
    received_at: float
    fault: str | None = None
    usage: dict[str, int] | None = None  # the usage sent back with a completion
    batch_id: str | None = None
    cached_tokens: int = 0  # read from `prompt_cache` (what it held when the request arrived)
    answered_at: float | None = None  # when the reply was sent

    def text(self) -> str:
        """Every message's content joined, to look for a token in the submission."""
        return "\n".join(str(m.get("content", "")) for m in self.messages)


@dataclass
class ServerStats:
    requests: list[RecordedRequest] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    rejected: int = 0  # 429s sent by `concurrency_limit`


def content_hash(*parts: Any) -> int:
    data = json.dumps(parts, sort_keys=True, ensure_ascii=False).encode()
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")


def schema_properties(body: dict[str, Any]) -> dict[str, Any]:
    """The reply properties asked for; a shared-schema call's as its prompt names them."""
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    return asked_properties(body, schema.get("properties") or {})


def option_count(body: dict[str, Any]) -> int | None:
    """Options of a multi-choice request: the schema's maximum, else the numbered lines."""
    selected = schema_properties(body).get("selected_option")
    if selected is None:
        return None
    if isinstance(selected.get("maximum"), int):
        return int(selected["maximum"])
    last = str(body["messages"][-1].get("content", ""))
    return len(OPTION_LINE.findall(last)) or 2


def set_size(body: dict[str, Any]) -> int | None:
    """Options a response set chooses from (`selected_options`): the items' maximum, else
    `maxItems`, else 2; None when the schema asks for no set."""
    wanted = schema_properties(body).get("selected_options")
    if wanted is None:
        return None
    for size in ((wanted.get("items") or {}).get("maximum"), wanted.get("maxItems")):
        if isinstance(size, int) and size > 0:
            return size
    return 2


def hash_subset(h: int, size: int, keep: int | None = None) -> list[int]:
    """A non-empty subset of 1..size from a hash, always holding `keep` when given."""
    mask = 1 + (h >> 16) % (2**size - 1)
    chosen = {p for p in range(1, size + 1) if mask >> (p - 1) & 1}
    if keep is not None:
        chosen.add(keep)
    return sorted(chosen)


def default_answer(body: dict[str, Any]) -> str:
    """A deterministic answer from the messages: MET 45%, UNMET 45%, CANNOT_ASSESS 10%.

    A response-set schema (`selected_options`) gets a non-empty subset by hash, beside the
    forced choice when the schema asks for one too (the set then holds that choice; a binary
    set, numbered 1. MET, 2. UNMET, holds the status unless it is CANNOT_ASSESS). A per-item
    request (SPEC §10) gets one entry per criterion, each hashed from (messages, name).
    """
    entries = item_entries(body)
    if entries is not None:
        return json.dumps(
            {
                "criteria": [
                    {"criterion": name, **hashed_answer(sub, content_hash(body["messages"], name))}
                    for name, sub in entries
                ]
            }
        )
    return json.dumps(hashed_answer(body, content_hash(body.get("messages"))))


def hashed_answer(body: dict[str, Any], h: int) -> dict[str, Any]:
    n = option_count(body)
    size = set_size(body)
    if size is not None:
        return response_set_answer(body, h, n, size)
    if n is not None:
        return {"explanation": f"option by hash {h % 997}", "selected_option": 1 + h % n}
    return {"explanation": f"verdict by hash {h % 997}", "criterion_status": status(h)}


# -- per-item requests (SPEC §10) ------------------------------------------------------------

ITEM_SECTION = re.compile(
    r"^Criterion \d+ of \d+, named .*?\n<criterion>\n(.*?)\n</criterion>"
    r"(?:\n<options>\n(.*?)\n</options>)?",
    re.DOTALL | re.MULTILINE,
)
CRITERION_BLOCK = re.compile(r"<criterion>\n(.*?)\n</criterion>", re.DOTALL)
OPTIONS_BLOCK = re.compile(r"<options>\n(.*?)\n</options>", re.DOTALL)


def item_entries(body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]] | None:
    """A per-item request's (criterion name, sub-body with that entry's schema), in order;
    None for a per-criterion request."""
    wanted = schema_properties(body).get("criteria")
    if wanted is None:
        return None
    items = wanted.get("items") or {}
    schemas = items.get("anyOf") or [items]
    return [
        (
            schema["properties"]["criterion"]["enum"][0],
            {**body, "response_format": {"json_schema": {"schema": schema}}},
        )
        for schema in schemas
    ]


def first_user_text(body: dict[str, Any]) -> str:
    users = [m for m in body.get("messages") or [] if m.get("role") == "user"]
    return str(users[0].get("content", "")) if users else ""


def shown_options(block: str | None) -> list[str] | None:
    if block is None:
        return None
    return [line.split(". ", 1)[1] for line in block.split("\n") if ". " in line]


def asked_criteria(body: dict[str, Any]) -> list[tuple[str, str, list[str] | None]]:
    """(name or "", requirement, shown option labels or None) of every criterion asked."""
    text = first_user_text(body)
    entries = item_entries(body)
    if entries is None:
        requirement = CRITERION_BLOCK.findall(text)
        options = OPTIONS_BLOCK.findall(text)
        return [
            (
                "",
                requirement[-1] if requirement else "",
                shown_options(options[-1] if options else None),
            )
        ]
    sections = ITEM_SECTION.findall(text)
    return [
        (name, requirement, shown_options(block or None))
        for (name, _), (requirement, block) in zip(entries, sections, strict=True)
    ]


LabelFor = Callable[[str, str, str], "str | None"]


def scripted_fields(
    body: dict[str, Any], label: str, shown: list[str] | None, explanation: str
) -> dict[str, Any]:
    """The reply fields for a scripted label (a status or an option label, as shown)."""
    answer: dict[str, Any] = {"explanation": explanation}
    properties = schema_properties(body)
    if shown is None:
        positions = {"MET": [1], "UNMET": [2]}.get(label, [1, 2])
        if "criterion_status" in properties or "selected_options" not in properties:
            answer["criterion_status"] = label
    else:
        positions = [shown.index(label) + 1]
        if "selected_option" in properties or "selected_options" not in properties:
            answer["selected_option"] = positions[0]
    if "selected_options" in properties:
        answer["selected_options"] = positions
    return answer


def scripted_answer(label_for: LabelFor) -> Answerer:
    """Answers both per-criterion and per-item requests with the same per-criterion labels:
    `label_for(model, prompt text, requirement)` gives a status or an option label (None: the
    default hashed answer). The explanation depends only on (requirement, label), so records
    of both modes are identical."""

    def answer(body: dict[str, Any]) -> str:
        text = first_user_text(body)
        entries = item_entries(body) or [("", body)]
        replies = []
        for (name, sub), (_, requirement, shown) in zip(entries, asked_criteria(body), strict=True):
            label = label_for(str(body.get("model")), text, requirement)
            if label is None:
                fields = hashed_answer(sub, content_hash(body["messages"], name))
            else:
                fields = scripted_fields(sub, label, shown, f"scripted {label} for {requirement}")
            replies.append({"criterion": name, **fields} if name else fields)
        if item_entries(body) is None:
            return json.dumps(replies[0])
        return json.dumps({"criteria": replies})

    return answer


def scripted_verdicts(
    verdicts: Mapping[tuple[str, str], str], fallback: Answerer | None = None
) -> Answerer:
    """An answerer that scripts verdicts per item and criterion: a binary request whose messages
    hold both `token` (e.g. an item's marker in its submission) and `requirement` gets
    `verdicts[(token, requirement)]` (MET, UNMET or CANNOT_ASSESS); every other request is
    answered by `fallback` (default: `default_answer`). Assign it to `server.answer` between runs.
    """
    otherwise = fallback or default_answer

    def answer(body: dict[str, Any]) -> str:
        if "criterion_status" in schema_properties(body) and set_size(body) is None:
            text = "\n".join(str(m.get("content", "")) for m in body.get("messages") or [])
            for (token, requirement), verdict in verdicts.items():
                if token in text and requirement in text:
                    return json.dumps({"explanation": "scripted", "criterion_status": verdict})
        return otherwise(body)

    return answer


def status(h: int) -> str:
    bucket = h % 20
    return "MET" if bucket < 9 else "UNMET" if bucket < 18 else "CANNOT_ASSESS"


def response_set_answer(body: dict[str, Any], h: int, n: int | None, size: int) -> dict[str, Any]:
    answer: dict[str, Any] = {"explanation": f"set by hash {h % 997}"}
    keep = None
    if n is not None:
        keep = answer["selected_option"] = 1 + h % n
    elif "criterion_status" in schema_properties(body):
        answer["criterion_status"] = status(h)
        keep = {"MET": 1, "UNMET": 2}.get(answer["criterion_status"])
    answer["selected_options"] = hash_subset(h, size, keep)
    return answer


def word_tokens(text: str) -> int:
    return max(1, len(text.split()))


def completion_body(model: str, content: str, prompt_tokens: int, reasoning: str | None) -> dict:
    completion_tokens = word_tokens(content)
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return {
        "id": f"chatcmpl-{content_hash(content, time.time_ns()) % 10**12}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def error_response(
    status: int, message: str, headers: dict[str, str] | None = None
) -> web.Response:
    body = {"error": {"message": message, "type": "server_error", "code": str(status)}}
    return web.json_response(body, status=status, headers=headers)


class JudgeServer:
    """Loopback OpenAI-compatible server. Use as a context manager or call start()/stop()."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        fault_rate: float = 0.0,
        fault_kinds: Sequence[FaultKind] = ("server_error",),
        fault_seed: int = 0,
        script: Iterable[Fault | FaultKind] = (),
        retry_after: float = 1.0,
        hang_s: float = 30.0,
        answer: Answerer | None = None,
        reasoning: str | None = None,
        echo_key: bool = False,
        batch_delay: float = 0.3,
        expire_batches: int = 0,
        create_delay: float = 0.0,
        concurrency_limit: int | None = None,
        port: int = 0,
        prompt_cache: ImplicitPromptCache | None = None,
    ) -> None:
        unknown = [k for k in fault_kinds if k not in FAULT_KINDS]
        if unknown:
            raise ValueError(f"unknown fault kind {unknown[0]!r}")
        self.latency = latency
        self.fault_rate = fault_rate
        self.fault_kinds = tuple(fault_kinds)
        self.fault_seed = fault_seed
        self.retry_after = retry_after
        self.hang_s = hang_s
        self.answer: Answerer = answer or default_answer
        self.reasoning = reasoning
        self.echo_key = echo_key
        self.batch_delay = batch_delay
        self.expire_batches = expire_batches
        self.create_delay = create_delay
        self.files: dict[str, StoredFile] = {}
        self.batch_jobs: dict[str, BatchJob] = {}
        self.concurrency_limit = concurrency_limit
        self.prompt_cache = prompt_cache  # OpenAI's automatic prompt caching (prompt_cache.py)
        self.stats = ServerStats()
        self._script: deque[Fault] = deque()
        self._seen: Counter[int] = Counter()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._stopping: asyncio.Event | None = None
        self.port = port
        self.script(*script)

    # -- scripting and inspection (thread-safe) ---------------------------------------------

    def script(self, *faults: Fault | FaultKind) -> None:
        """Queue faults for the next requests, one per request, in arrival order."""
        with self._lock:
            self._script.extend(f if isinstance(f, Fault) else Fault(f) for f in faults)

    def reset(self) -> None:
        """Forget recorded requests, the in-flight maximum, the script and rate counters, and
        the files and batches."""
        with self._lock:
            self.files.clear()
            self.batch_jobs.clear()
            self.stats = ServerStats()
            self._script.clear()
            self._seen.clear()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.url}/v1"

    @property
    def request_count(self) -> int:
        return len(self.stats.requests)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self.stats.requests)

    @property
    def max_in_flight(self) -> int:
        return self.stats.max_in_flight

    def requests_mentioning(self, token: str) -> list[RecordedRequest]:
        return [r for r in self.requests if token in r.text()]

    # -- request handling ------------------------------------------------------------------

    def _next_fault(self, body: dict[str, Any]) -> Fault | None:
        with self._lock:
            if self._script:
                return self._script.popleft()
            if self.fault_rate <= 0:
                return None
            key = content_hash(body.get("messages"))
            self._seen[key] += 1
            draw = content_hash(self.fault_seed, key, self._seen[key])
        if (draw % 1_000_000) / 1_000_000 >= self.fault_rate:
            return None
        return Fault(self.fault_kinds[draw % len(self.fault_kinds)])

    def _enter(self, record: RecordedRequest) -> bool:
        """Record the request; False when `concurrency_limit` refuses it (it is not in flight)."""
        with self._lock:
            self.stats.requests.append(record)
            limit = self.concurrency_limit
            if limit is not None and self.stats.in_flight >= limit:
                self.stats.rejected += 1
                record.fault = "rate_limit"
                return False
            self.stats.in_flight += 1
            self.stats.max_in_flight = max(self.stats.max_in_flight, self.stats.in_flight)
            return True

    def _leave(self) -> None:
        with self._lock:
            self.stats.in_flight -= 1

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        fault = self._next_fault(body)
        record = RecordedRequest(
            model=str(body.get("model")),
            messages=list(body.get("messages") or []),
            body=body,
            received_at=time.monotonic(),
            fault=fault.kind if fault else None,
        )
        if self.prompt_cache is not None:
            record.cached_tokens = self.prompt_cache.lookup(body).read
        if not self._enter(record):
            return error_response(
                429, "too many requests", {"Retry-After": _seconds(self.retry_after)}
            )
        try:
            if self.latency > 0:
                await asyncio.sleep(self.latency)
            return await self._respond(
                body, fault, request.headers.get("Authorization", ""), record
            )
        finally:
            self._leave()

    async def _respond(
        self,
        body: dict[str, Any],
        fault: Fault | None,
        authorization: str,
        record: RecordedRequest | None = None,
    ) -> web.StreamResponse:
        model = str(body.get("model"))
        prompt_tokens = sum(word_tokens(str(m.get("content", ""))) for m in body["messages"])
        content = self.answer(body)
        if fault is not None:
            special = await self._fault_response(fault, authorization)
            if special is not None:
                return special
            content = "this is not json {" if fault.kind == "malformed" else content
            if fault.kind == "out_of_range":
                content = out_of_range_answer(body, content)
        reasoning = self.reasoning if _asks_reasoning(body) else None
        reply = completion_body(model, content, prompt_tokens, reasoning)
        if record is not None and record.cached_tokens:
            reply["usage"]["prompt_tokens_details"] = {"cached_tokens": record.cached_tokens}
        if self.prompt_cache is not None:
            self.prompt_cache.store(body)  # visible to the requests that arrive from now on
        if record is not None:
            record.usage = {k: reply["usage"][k] for k in ("prompt_tokens", "completion_tokens")}
            if record.cached_tokens:
                record.usage["cached_tokens"] = record.cached_tokens
            record.answered_at = time.monotonic()
        return web.json_response(reply)

    async def _fault_response(self, fault: Fault, authorization: str) -> web.Response | None:
        # A 401 echoes the key, as some real providers do; with `echo_key` every error does,
        # so tests prove we never repeat it.
        key = authorization.removeprefix("Bearer ").strip()
        echo = f" (key {key})" if self.echo_key else ""
        if fault.kind == "rate_limit":
            wait = self.retry_after if fault.retry_after is None else fault.retry_after
            return error_response(429, "rate limited" + echo, {"Retry-After": _seconds(wait)})
        if fault.kind == "server_error":
            return error_response(fault.status or 500, "internal error" + echo)
        if fault.kind == "unauthorized":
            return error_response(fault.status or 401, f"Incorrect API key provided: {key}")
        if fault.kind == "bad_request":
            return error_response(400, "bad request" + echo)
        if fault.kind == "not_found":
            return error_response(404, "The model `x` does not exist" + echo)
        if fault.kind == "hang":
            assert self._stopping is not None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.hang_s)
            return error_response(504, "hung until the client gave up")
        return None

    # -- lifecycle -------------------------------------------------------------------------

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=256 * 1024 * 1024)  # batch files: up to 200 MB
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_post("/chat/completions", self._handle)
        for prefix in ("/v1", ""):
            app.router.add_post(f"{prefix}/files", self._upload_file)
            app.router.add_get(f"{prefix}/files/{{file_id}}", self._get_file)
            app.router.add_get(f"{prefix}/files/{{file_id}}/content", self._file_content)
            app.router.add_post(f"{prefix}/batches", self._create_batch)
            app.router.add_get(f"{prefix}/batches", self._list_batches)
            app.router.add_get(f"{prefix}/batches/{{batch_id}}", self._retrieve_batch)
            app.router.add_post(f"{prefix}/batches/{{batch_id}}/cancel", self._cancel_batch)
        return app

    # -- files and batches (OpenAI format) ---------------------------------------------------

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
            self.stats.requests.append(
                RecordedRequest(
                    model=str(body.get("model")),
                    messages=list(body.get("messages") or []),
                    body=body,
                    received_at=time.monotonic(),
                    fault=fault.kind if fault else None,
                    batch_id=batch_id,
                )
            )
        statuses = {"rate_limit": 429, "server_error": 500, "unauthorized": 401}
        statuses.update({"bad_request": 400, "hang": 504})
        if fault is not None and fault.kind in statuses:
            status = fault.status or statuses[fault.kind]
            return status, {"error": {"message": f"{fault.kind}", "type": "server_error"}}
        model = str(body.get("model"))
        prompt_tokens = sum(word_tokens(str(m.get("content", ""))) for m in body["messages"])
        content = self.answer(body)
        if fault is not None and fault.kind == "malformed":
            content = "this is not json {"
        if fault is not None and fault.kind == "out_of_range":
            content = out_of_range_answer(body, content)
        reasoning = self.reasoning if _asks_reasoning(body) else None
        return 200, completion_body(model, content, prompt_tokens, reasoning)

    async def _start_site(self) -> None:
        self._stopping = asyncio.Event()
        self._runner = web.AppRunner(self._app(), access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port, backlog=1024, reuse_address=True)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    def start(self) -> JudgeServer:
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._start_site())
            except BaseException as exc:  # surfaced to the starting thread
                failure.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._shutdown())
            loop.close()

        self._thread = threading.Thread(target=run, name="judge-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure:
            raise failure[0]
        return self

    async def _shutdown(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if self._stopping is not None:
            loop.call_soon_threadsafe(self._stopping.set)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        self._loop = self._thread = None

    def __enter__(self) -> JudgeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


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


def out_of_range_answer(body: dict[str, Any], content: str) -> str:
    """`selected_option` 99; for a response-set schema, the usual answer with the set [99]."""
    if set_size(body) is None:
        return json.dumps({"explanation": "too far", "selected_option": 99})
    answer = json.loads(content)
    answer["selected_options"] = [99]
    return json.dumps(answer)


def _asks_reasoning(body: dict[str, Any]) -> bool:
    return "reasoning_effort" in body or "thinking" in body


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


# -- the same server in a separate process (benchmarks) -------------------------------------


def _serve_forever(options: dict[str, Any], port_pipe: Any, stop_event: Any) -> None:
    with JudgeServer(**options) as server:
        port_pipe.send(server.port)
        stop_event.wait()
        port_pipe.send((server.request_count, server.max_in_flight, time.process_time()))


class JudgeServerProcess:
    """`JudgeServer` in a child process; `cpu_s` and counts are read back on stop()."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.port = 0
        self.request_count = 0
        self.max_in_flight = 0
        self.cpu_s = 0.0
        context = multiprocessing.get_context("spawn")
        self._parent, child = context.Pipe()
        self._stop = context.Event()
        self._process = context.Process(
            target=_serve_forever, args=(options, child, self._stop), daemon=True
        )

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> JudgeServerProcess:
        self._process.start()
        try:
            ready = self._parent.poll(30)
            self.port = self._parent.recv() if ready else 0
        except EOFError:
            self.port = 0
        if not self.port:
            self._process.kill()
            raise RuntimeError(
                "judge server process did not start (a script that starts it must guard its "
                "entry point with `if __name__ == '__main__':`)"
            )
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._parent.poll(10):
            self.request_count, self.max_in_flight, self.cpu_s = self._parent.recv()
        self._process.join(10)
