"""Provider prompt caching across an item's comparisons (docs/guides/pairwise.md, "Cost").

A comparison's calls in one order share their prefix: the query and both answers. Across the
comparisons of one item, every call that shows the same answer first also shares the prefix up
to that answer (`PairRequest.first_chars`, a cache breakpoint of its own for providers that
take them). A provider's cache entry is usable only once the call that wrote it was processed,
so the first group of calls to show an answer first sends its first call, and every other group
that shows it first waits for that call before it sends its own: they read the part instead of
writing it again. Groups whose calls share no prefix (caching off, a provider without caching, a
prefix below the provider's minimum) never wait.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from autorubric_cli.grading.grader import shared_prefix_requests, staged
from autorubric_cli.judges.judge import Judge
from autorubric_cli.judges.pairs import PairRequest

T = TypeVar("T")


class FirstWrites:
    """The writes in progress of an item's first-answer prefixes, per judge."""

    def __init__(self) -> None:
        self.writing: dict[str, asyncio.Future[None]] = {}

    async def send(
        self, judge: Judge, requests: list[PairRequest], ask: Callable[[PairRequest], Awaitable[T]]
    ) -> tuple[list[PairRequest], list[T]]:
        """`grading.grader.staged` for one group of calls, after any write of its first part."""
        sent = shared_prefix_requests(judge.spec, requests)
        if not sent or sent[0].prefix_chars is None or sent[0].first_chars is None:
            return await staged(judge.spec, requests, ask)
        key = f"{judge.id}\x1f{requests[0].messages[1]['content'][: requests[0].first_chars]}"
        pending = self.writing.get(key)
        if pending is not None:
            await asyncio.shield(pending)
            return await staged(judge.spec, requests, ask)
        written: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.writing[key] = written

        def release() -> None:
            if not written.done():
                written.set_result(None)
            if self.writing.get(key) is written:
                del self.writing[key]

        async def ask_then_release(request: PairRequest) -> T:
            try:
                return await ask(request)
            finally:
                if request is requests[0]:
                    release()

        try:
            return await staged(judge.spec, requests, ask_then_release)
        finally:
            release()
