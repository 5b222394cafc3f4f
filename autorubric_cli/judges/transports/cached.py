"""The call cache in front of a transport (docs/guides/cache-and-cost.md): lookups, single flight,
store-on-parse.

A call is identified by `request_key` alone, so the wrapper knows nothing of what the request
is about (a criterion, a whole item, a batch line) beyond the samples it asks for.

- `lookup` is a synchronous read the Judge makes BEFORE taking a concurrency slot or a rate
  turn, so cache hits never wait behind, or count against, a judge's limits. `build_judges`
  hands the judge this wrapper as its `cache` when it builds it: nobody looks for it later.
- Single flight: identical calls in flight at once are sent once; the others await the first
  and get its answer marked `cached` (it was paid once, by the first).
- Only answers that parsed are stored: the returned Completion carries `confirm`, which the
  Judge calls after `parse_answer` accepted the reply. Errors raise and are never stored.
- A call asking for several samples at once (`n`, judges/samples.py) is stored per sample, each
  choice under the key of its sample's own call (`keep`), so a later run that asks for them
  one by one, or together, or a resume, is served; the call itself is never stored whole.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.cache import CachedAnswer, CallCache
from autorubric_cli.judges.request import Call, Completion, Transport
from autorubric_cli.judges.request_key import request_key


@dataclass(eq=False)
class SingleFlight:
    """Futures of the calls in flight, by key; shared by every judge of a run."""

    calls: dict[str, asyncio.Future[Completion]] = field(default_factory=dict)


def served(answer: CachedAnswer) -> Completion:
    return Completion(
        content=answer.content,
        reasoning=answer.reasoning,
        usage=dict(answer.usage),
        cost=answer.cost,
        cached=True,
    )


@dataclass(eq=False)
class CachedTransport:
    """Wraps `inner`; same interface, plus `lookup`."""

    inner: Transport
    spec: JudgeSpec
    cache: CallCache
    flights: SingleFlight

    def key(self, call: Call) -> str:
        return request_key(self.spec, call)

    def lookup(self, call: Call) -> Completion | None:
        """The stored answer to `call`, read at once (no slot, no rate turn); else None."""
        answer = self.cache.get(self.key(call))
        return None if answer is None else served(answer)

    def holds(self, call: Call) -> bool:
        """Whether `call` would be served (a look that decides how to send it, not a hit)."""
        return self.cache.get(self.key(call), count=False) is not None

    def keep(self, call: Call, completion: Completion) -> None:
        """Store `completion` as the answer to `call` (one sample's share of a call that asked
        for several: `call` is that sample's own)."""
        self.cache.put(self.key(call), self.spec.model, stored(completion))

    async def complete(self, call: Call) -> Completion:
        key = self.key(call)
        while True:
            answer = self.cache.get(key)
            if answer is not None:
                return served(answer)
            pending = self.flights.calls.get(key)
            if pending is None:
                return await self._send(key, call)
            try:
                first = await asyncio.shield(pending)
            except asyncio.CancelledError:
                if pending.cancelled():
                    continue  # the first caller was cancelled, not us: send it ourselves
                raise
            return replace(first, usage=dict(first.usage), cached=True, confirm=None)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def _send(self, key: str, call: Call) -> Completion:
        future: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        self.flights.calls[key] = future
        try:
            completion = await self.inner.complete(call)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody waits
            raise
        finally:
            del self.flights.calls[key]
        future.set_result(completion)
        if call.choices == 1:  # several samples' choices are kept one by one (`keep`)
            completion.confirm = lambda: self.cache.put(key, self.spec.model, stored(completion))
        return completion


def stored(completion: Completion) -> CachedAnswer:
    return CachedAnswer(completion.content, completion.reasoning, completion.usage, completion.cost)
