"""The common base of the provider fakes: an aiohttp app on 127.0.0.1 in a background thread.

As `tests/support/judge_server.py` does, each fake runs its own event loop in a daemon thread,
so in-process async tests, in-process CLI runs and subprocesses (through `api_base`) can all
call it. A fake records every request (path, query, headers, JSON body), answers from the
request content only (deterministic, whatever the order), and plays the faults queued with
`script(...)` in arrival order (faults.py), each in its provider's own wire shape.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.support.loopback import LoopbackSite
from tests.support.prompt_cache import CacheBill
from tests.support.providers.faults import Fault, FaultKind, FaultScript, is_error
from tests.support.providers.wire import answer_for

Refusal = Callable[[dict[str, Any], dict[str, str]], web.Response | None]


@dataclass
class Seen:
    """One request as the fake received it."""

    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: dict[str, Any]
    fault: str | None = None
    status: int = 200
    at: float = field(default_factory=time.monotonic)  # arrival, for the order of events
    bill: CacheBill | None = None  # what the fake's prompt cache held on arrival, if it has one
    usage: dict[str, Any] | None = None  # the usage of a 200 reply (fakes that note it)
    answered_at: float | None = None  # when that reply was sent (fakes that note it)

    @property
    def received_at(self) -> float:
        return self.at


class FakeProvider:
    """Start with `with Fake() as fake:`; `fake.api_base` is what a judge's `api_base` is set to.

    Subclasses add routes (`routes`) and render answers and faults in their wire format."""

    name = "fake"
    api_base_path = ""  # appended to http://127.0.0.1:PORT to form `api_base`

    def __init__(self, *, latency: float = 0.0, reasoning: str = "thought about it") -> None:
        self.latency = latency
        self.reasoning = reasoning
        self.faults = FaultScript()
        self.seen: list[Seen] = []
        self.replies: list[str] = []  # the text of every 200 reply, in order
        # at most this many choices per reply, whatever the request asks (None: as asked)
        self.choice_limit: int | None = None
        self.port = 0
        self._lock = threading.Lock()
        self._site = LoopbackSite(f"fake-{self.name}")

    # -- what subclasses provide -----------------------------------------------------------

    def routes(self, app: web.Application) -> None:
        raise NotImplementedError

    def answer(self, messages: list[dict[str, str]], schema: dict[str, Any] | None) -> str:
        """The JSON text answered to these messages and schema; a test may replace it."""
        return answer_for(messages, schema)

    def choice_texts(
        self, messages: list[dict[str, str]], schema: dict[str, Any] | None, asked: int
    ) -> list[str]:
        """The answers to a request for `asked` choices (`n`, `candidateCount`; at most
        `choice_limit`): `answer` for the first, each later one hashed with its index, as
        independent samples differ."""
        count = max(1, min(asked, self.choice_limit or asked))
        first = self.answer(messages, schema)
        return [first, *(answer_for(messages, schema, i) for i in range(1, count))]

    def replied(self, text: str) -> str:
        """Note the text of a 200 reply (tests compare the records with it)."""
        with self._lock:
            self.replies.append(text)
        return text

    # -- scripting and inspection ----------------------------------------------------------

    def script(self, *faults: Fault | FaultKind) -> None:
        self.faults.extend(faults)

    def reset(self) -> None:
        with self._lock:
            self.seen.clear()
            self.replies.clear()
        self.faults.clear()
        self.choice_limit = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return self.url + self.api_base_path

    @property
    def requests(self) -> list[Seen]:
        with self._lock:
            return list(self.seen)

    async def admitted(
        self, request: web.Request, refusal: Refusal
    ) -> tuple[Seen, Fault | None, web.Response | None]:
        """The request recorded, with the reply that ends it early when there is one: the
        provider's refusal of its shape (`refusal(body, headers)`), else a scripted error."""
        seen, fault = await self.receive(request)
        refused = refusal(seen.body, seen.headers)
        if refused is not None:
            seen.status = refused.status
            return seen, fault, refused
        if fault is not None and is_error(fault):
            return seen, fault, self.fault_reply(seen, fault)
        return seen, fault, None

    def fault_reply(self, seen: Seen, fault: Fault) -> web.Response:
        raise NotImplementedError  # each provider's error body

    def arrived(self, seen: Seen, fault: Fault | None) -> None:
        """Called as a request arrives, before the fake's latency (a prompt cache looks up
        what it held then: calls sent together all miss); nothing by default."""

    async def receive(self, request: web.Request) -> tuple[Seen, Fault | None]:
        """Record the request and take the next scripted fault (after the fake's latency)."""
        body = await request.json() if request.can_read_body else {}
        fault = self.faults.next()
        seen = Seen(
            path=request.path,
            query=dict(request.query),
            headers={k.lower(): v for k, v in request.headers.items()},
            body=body,
            fault=fault.kind if fault else None,
        )
        with self._lock:
            self.seen.append(seen)
        self.arrived(seen, fault)
        if self.latency > 0:
            await asyncio.sleep(self.latency)
        return seen, fault

    # -- lifecycle -------------------------------------------------------------------------

    def _app(self) -> web.Application:
        app = web.Application()
        self.routes(app)
        return app

    def start(self) -> FakeProvider:
        self._site.start(self._app, backlog=256)
        self.port = self._site.port
        return self

    def stop(self) -> None:
        self._site.stop()

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
