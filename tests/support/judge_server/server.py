"""`JudgeServer`: the chat and batch endpoints on 127.0.0.1, in a background thread.

The server runs an aiohttp app in a thread with its own event loop, so both in-process async
tests and subprocesses (through `api_base`) can call it. `concurrency_limit=N` answers 429
(with `Retry-After: retry_after`) to a request that arrives while N are in flight, as a
provider's rate limit does; `slots=N` instead serves N requests at a time and queues the rest,
never refusing, as a local server with N slots does (llama.cpp's `--parallel`), each taking
`latency` seconds. Either way the server watches its connections: a request whose client closed
the connection (it gave up) stops being generated or hung, and is counted in `stats.abandoned`.
`port` binds a fixed port, so a test can stop the server and start it again where the client
expects it; `refuses` names `response_format` types the server refuses with llama-cpp-python
0.3.36's HTTP 500 (`refuses=("json_schema",)` is that server).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from typing import Any

from aiohttp import web

from tests.support.judge_server.answers import Answerer, content_hash, default_answer
from tests.support.judge_server.batches import BatchEndpoints, BatchJob, StoredFile
from tests.support.judge_server.chat import ChatEndpoints, RecordedRequest, ServerStats
from tests.support.judge_server.faults import FAULT_KINDS, Fault, FaultKind
from tests.support.loopback import LoopbackSite
from tests.support.prompt_cache import ImplicitPromptCache


class JudgeServer(ChatEndpoints, BatchEndpoints):
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
        slots: int | None = None,
        port: int = 0,
        prompt_cache: ImplicitPromptCache | None = None,
        refuses: Iterable[str] = (),
        choice_limit: int | None = None,
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
        self.refuses = frozenset(refuses)  # response_format types refused (faults.format_refusal)
        self.slot_count = slots
        self.slots: asyncio.Semaphore | None = None  # made on the server's loop
        self.prompt_cache = prompt_cache  # OpenAI's automatic prompt caching (prompt_cache.py)
        # at most this many choices per reply, whatever `n` asks (None: as many as asked)
        self.choice_limit = choice_limit
        self.stats = ServerStats()
        self._script: deque[Fault] = deque()
        self._seen: Counter[int] = Counter()
        self._lock = threading.Lock()
        self._site = LoopbackSite("judge-server")
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

    def wait_abandoned(self, count: int, guard_s: float = 60.0) -> list[RecordedRequest]:
        """The requests abandoned by their client, once there are `count` of them (the server
        notices a closed connection within a few milliseconds; `guard_s` only stops a hung
        test)."""
        deadline = time.monotonic() + guard_s
        while self.stats.abandoned < count and time.monotonic() < deadline:
            time.sleep(0.005)
        return [r for r in self.requests if r.abandoned_at is not None]

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

    # -- lifecycle -------------------------------------------------------------------------

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=256 * 1024 * 1024)  # batch files: up to 200 MB
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_post("/chat/completions", self._handle)
        self.batch_routes(app)
        return app

    async def _make_stopping(self) -> None:
        self._stopping = asyncio.Event()  # bound to the server's loop
        if self.slot_count is not None:
            self.slots = asyncio.Semaphore(self.slot_count)

    def start(self) -> JudgeServer:
        self._site.start(self._app, port=self.port, on_loop=self._make_stopping)
        self.port = self._site.port
        return self

    def stop(self) -> None:
        stopping = self._stopping
        self._site.stop(None if stopping is None else stopping.set)

    def __enter__(self) -> JudgeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
