"""A scriptable OpenAI-compatible judge server on 127.0.0.1 for tests and benchmarks.

`JudgeServer` runs an aiohttp app in a background thread with its own event loop, so both
in-process async tests and subprocesses (through `api_base`) can call it. `JudgeServerProcess`
runs the same server in a separate process (benchmarks measure client CPU alone).

Answers are a deterministic function of the request content (a hash of the messages), so a
resumed run gets the same answers whatever the request order. Faults come from an explicit
script (`script(...)`, consumed in arrival order) or by rate: the k-th request with a given
content faults iff hash(fault_seed, content, k) falls under `fault_rate`, which is again
independent of request order. Response-set schemas (`selected_options`) are answered too.

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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

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
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    return schema.get("properties") or {}


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
    set, numbered 1. MET, 2. UNMET, holds the status unless it is CANNOT_ASSESS).
    """
    h = content_hash(body.get("messages"))
    n = option_count(body)
    size = set_size(body)
    if size is not None:
        return json.dumps(response_set_answer(body, h, n, size))
    if n is not None:
        return json.dumps(
            {"explanation": f"option by hash {h % 997}", "selected_option": 1 + h % n}
        )
    return json.dumps({"explanation": f"verdict by hash {h % 997}", "criterion_status": status(h)})


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
        concurrency_limit: int | None = None,
        port: int = 0,
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
        self.concurrency_limit = concurrency_limit
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
        """Forget recorded requests, the in-flight maximum, the script and rate counters."""
        with self._lock:
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
        if not self._enter(record):
            return error_response(
                429, "too many requests", {"Retry-After": _seconds(self.retry_after)}
            )
        try:
            if self.latency > 0:
                await asyncio.sleep(self.latency)
            return await self._respond(body, fault, request.headers.get("Authorization", ""))
        finally:
            self._leave()

    async def _respond(
        self, body: dict[str, Any], fault: Fault | None, authorization: str
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
        return web.json_response(completion_body(model, content, prompt_tokens, reasoning))

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
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_post("/chat/completions", self._handle)
        return app

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
