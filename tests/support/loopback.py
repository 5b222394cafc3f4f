"""An aiohttp app on 127.0.0.1, served by an event loop in a daemon thread: how every loopback
fake (the OpenAI-shaped judge server, the provider fakes, the batch fakes) starts and stops, so
both in-process async tests and subprocesses (through `api_base`) can reach it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable

from aiohttp import web


class LoopbackSite:
    """`start(make_app, port)` serves the app and sets `port`; `stop()` ends the loop and
    cleans the app up (after `before_stop`, run on the loop, e.g. releasing hung handlers)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.port = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None

    async def _serve(
        self, make_app: Callable[[], web.Application], port: int, backlog: int
    ) -> None:
        self._runner = web.AppRunner(make_app(), access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port, backlog=backlog, reuse_address=True)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    def start(
        self,
        make_app: Callable[[], web.Application],
        *,
        port: int = 0,
        backlog: int = 1024,
        on_loop: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """Serve; `on_loop` runs first on the new loop (to create loop-bound objects)."""
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self.loop = loop
            try:
                if on_loop is not None:
                    loop.run_until_complete(on_loop())
                loop.run_until_complete(self._serve(make_app, port, backlog))
            except BaseException as exc:  # surfaced to the starting thread
                failure.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            if self._runner is not None:
                loop.run_until_complete(self._runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=run, name=self.name, daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure:
            raise failure[0]

    def stop(self, before_stop: Callable[[], None] | None = None) -> None:
        loop, thread = self.loop, self._thread
        if loop is None or thread is None:
            return
        if before_stop is not None:
            loop.call_soon_threadsafe(before_stop)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        self.loop = self._thread = None
