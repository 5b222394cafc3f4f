"""What the Anthropic and Gemini batch fakes share: a loopback aiohttp server in a thread, batch
jobs with a delay, expiry and cancel, and per-request answers and faults decided by content.

Each fake serves the provider's direct endpoint AND its batch endpoints, and answers both from
one function of the request's content (the chat fake's `default_answer`, on the request
translated to the OpenAI shape), so a batch run and a direct run get the same answers. A fault
hits the k-th copy of a request with given content iff hash(fault_seed, content, k) falls under
`fault_rate`, whichever endpoint it arrives at, so the same retries happen in both modes.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.support.judge_server import content_hash, default_answer, word_tokens
from tests.support.loopback import LoopbackSite

Answerer = Callable[[dict[str, Any]], str]


@dataclass
class Processed:
    """One request answered: at the direct endpoint (`batch_id` None) or in a batch."""

    body: dict[str, Any]
    batch_id: str | None
    fault: str | None
    key: str | None = None  # custom_id / metadata key of a batched request


@dataclass
class Job:
    """One batch at the provider."""

    id: str
    requests: list[dict[str, Any]]  # the provider's per-request entries, as created
    created: float  # wall clock
    ready_at: float  # monotonic: processing ends then
    label: str = ""  # Gemini's displayName
    expire: bool = False
    cancelled: bool = False
    ended: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    results: list[dict[str, Any]] = field(default_factory=list)


class BatchFake:
    """Lifecycle, jobs and faults; a subclass adds the provider's routes and shapes."""

    fault_kinds: tuple[str, ...] = ("server_error",)

    def __init__(
        self,
        *,
        batch_delay: float = 0.2,
        create_delay: float = 0.0,
        expire_batches: int = 0,
        fault_rate: float = 0.0,
        fault_kinds: tuple[str, ...] | None = None,
        fault_seed: int = 0,
        answer: Answerer | None = None,
    ) -> None:
        self.batch_delay = batch_delay
        self.create_delay = create_delay
        self.expire_batches = expire_batches
        self.fault_rate = fault_rate
        self.fault_kinds = fault_kinds or type(self).fault_kinds
        self.fault_seed = fault_seed
        self.answer = answer or default_answer
        self.jobs: dict[str, Job] = {}
        self.processed: list[Processed] = []
        self.control_calls: Counter[str] = Counter()
        self._seen: Counter[int] = Counter()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._site = LoopbackSite(type(self).__name__)
        self.port = 0

    # -- to be provided by the provider's fake ---------------------------------------------

    def routes(self, app: web.Application) -> None:
        raise NotImplementedError

    def openai_shaped(self, body: dict[str, Any]) -> dict[str, Any]:
        """The request as the chat fake's answerer reads it: messages and response_format."""
        raise NotImplementedError

    def finish(self, job: Job) -> None:
        """Answer the job's requests (once) and store its results."""
        raise NotImplementedError

    # -- shared rules ----------------------------------------------------------------------

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):06d}"

    def fault_for(self, shaped: dict[str, Any]) -> str | None:
        with self._lock:
            if self.fault_rate <= 0:
                return None
            key = content_hash(shaped.get("messages"))
            self._seen[key] += 1
            draw = content_hash(self.fault_seed, key, self._seen[key])
        if (draw % 1_000_000) / 1_000_000 >= self.fault_rate:
            return None
        return self.fault_kinds[draw % len(self.fault_kinds)]

    def answered(
        self, body: dict[str, Any], batch_id: str | None, key: str | None = None
    ) -> tuple[str | None, str, int, int]:
        """(fault, answer text, prompt tokens, completion tokens) for one request, recorded."""
        shaped = self.openai_shaped(body)
        fault = self.fault_for(shaped)
        with self._lock:
            self.processed.append(Processed(body, batch_id, fault, key))
        text = self.answer(shaped)
        prompt = sum(word_tokens(str(m.get("content", ""))) for m in shaped["messages"])
        return fault, text, prompt, word_tokens(text)

    def add_job(self, job: Job) -> Job:
        with self._lock:
            job.expire = self.expire_batches > 0
            self.expire_batches -= job.expire
            self.jobs[job.id] = job
        return job

    def job(self, job_id: str) -> Job | None:
        """The job, finished first if its time has come (or it was cancelled)."""
        job = self.jobs.get(job_id)
        if job is not None and not job.ended and time.monotonic() >= job.ready_at:
            with self._lock:
                if job.ended:
                    return job
                job.ended = True
            self.finish(job)
        return job

    def processed_count(self, job: Job) -> int:
        """How many of the job's requests the provider got to: all; none once cancelled; the
        first half when it expires."""
        if job.cancelled:
            return 0
        return (len(job.requests) + 1) // 2 if job.expire else len(job.requests)

    @property
    def batch_requests(self) -> list[Processed]:
        with self._lock:
            return [p for p in self.processed if p.batch_id is not None]

    @property
    def direct_requests(self) -> list[Processed]:
        with self._lock:
            return [p for p in self.processed if p.batch_id is None]

    def reset(self) -> None:
        with self._lock:
            self.jobs.clear()
            self.processed.clear()
            self._seen.clear()
            self.control_calls.clear()

    async def hold_create(self) -> None:
        if self.create_delay > 0:  # the batch exists before the client hears of it
            await asyncio.sleep(self.create_delay)

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=300 * 1024 * 1024)
        self.routes(app)
        return app

    def start(self) -> BatchFake:
        self._site.start(self._app, backlog=128)
        self.port = self._site.port
        return self

    def stop(self) -> None:
        self._site.stop()

    def __enter__(self) -> BatchFake:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def text_of(content: Any) -> str:
    """A message content (a string, or a list of text blocks / parts) as one string."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(block.get("text", "")) for block in content if isinstance(block, dict))
    return ""
