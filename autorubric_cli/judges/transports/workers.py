"""Judge worker processes: litellm's CPU per call spread over cores; grading and writing stay here.

litellm costs milliseconds of CPU per call (docs/design/judge-calls.md), so one process tops
out below what a large provider account allows. Worker processes (`worker_main.py`) each run
`call_litellm`, the one call path the in-process transport runs too. The grader, its retries,
limits, breaker, cache and the record writer stay in this process: a worker only turns a
request into a reply.

- `workers: auto` (`spill=True`): calls run in this process until it is busy more than
  `SPILL_AT` of its time over `WATCH_S` seconds, the point where its per-call CPU starts to
  delay replies; then a worker is started and takes every call once it has imported litellm.
  While every worker is busy more than `GROW_AT` of its time (they report their CPU time
  once a second), another is started, up to `maximum` (the cores).
- `workers: N`: N workers started at once (`start`, before the event loop: their litellm
  import runs while this process finishes its own start-up); every call goes to them.
- A call goes to the ready worker with the fewest calls in flight.
- A worker that exits takes its in-flight calls with it: they fail as retryable `worker`
  failures that do not count against the judge (the breaker ignores them). With `workers: N`
  a new worker is started for the next call, and after `MAX_EXITS` exits `WorkerPoolFailed`
  stops the run (nothing half-graded is recorded; `resume` finishes it). With `auto` the calls
  come back to this process, and a new worker is started only if it gets busy again (none
  after `MAX_EXITS` exits: the run goes on here).
- Closing the pool closes the sockets; a worker exits on end of file, so it never outlives the
  run even when this process is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import orjson

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.errors import JudgeError
from autorubric_cli.judges.policy.failures import JudgeFailure
from autorubric_cli.judges.policy.kinds import FailureKind
from autorubric_cli.judges.prompt_caching import cache_marked
from autorubric_cli.judges.request import Call, Completion, Transport
from autorubric_cli.judges.transports.direct import needs_litellm
from autorubric_cli.judges.transports.litellm import LiteLLMTransport, prefix_of
from autorubric_cli.judges.transports.worker_wire import LINE_LIMIT, encode, outcome_of

SPILL_AT = 0.9  # busy share of this process above which calls move to worker processes
GROW_AT = 0.5  # busy share of every worker above which one more is started
WATCH_S = 4.0  # a run CPU-bound this long is worth a worker's litellm import
MAX_EXITS = 3  # workers that may exit unexpectedly before the run stops
CLOSE_WAIT_S = 5.0


class WorkerPoolFailed(JudgeError):
    """Judge worker processes keep exiting: the run stops (exit 2), `resume` finishes it."""


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass
class WorkerProcess:
    process: subprocess.Popen[bytes]
    sock: socket.socket
    writer: asyncio.StreamWriter | None = None
    connecting: asyncio.Future[None] | None = None
    reading: asyncio.Task[None] | None = None
    pending: dict[int, asyncio.Future[Completion | Exception]] = field(default_factory=dict)
    cpu: float | None = None  # CPU seconds at the last report
    cpu_at: float = 0.0
    busy: float = 0.0  # share of the last report interval spent on CPU
    alive: bool = True

    @property
    def ready(self) -> bool:
        """Imported litellm: it reports its CPU time from then on (at once, then each second)."""
        return self.alive and self.cpu is not None


class WorkerPool:
    """Worker processes for the judges `specs`; `maximum` workers at most. `spill`: start them
    only once this process is too busy (`workers: auto`), else `start` them all at once."""

    def __init__(
        self, specs: list[JudgeSpec], timeout: float, maximum: int, *, spill: bool = False
    ) -> None:
        self.specs = specs
        self.timeout = timeout
        self.maximum = max(1, maximum)
        self.spill = spill
        self.workers: list[WorkerProcess] = []
        self.exits = 0
        self.closing = False
        self.watching: asyncio.Task[None] | None = None
        self._ids = itertools.count()

    def start(self) -> None:
        """Start every worker now (synchronous: no event loop is needed yet)."""
        while len(self.workers) < self.maximum:
            self._spawn()

    @property
    def takes_calls(self) -> bool:
        """Calls go to the workers (else they run in this process: `spill`, none ready yet)."""
        return not self.spill or any(w.ready for w in self.workers)

    def watch(self) -> None:
        """`spill`: watch this process's CPU from now on (after a call: litellm is imported, so
        its import does not count as load)."""
        if self.spill and self.watching is None:
            self.watching = asyncio.ensure_future(self._watch())

    async def _watch(self) -> None:
        """`spill`: start a worker whenever none is alive and this process is busy more than
        SPILL_AT (after MAX_EXITS exits, none: the run goes on in this process)."""
        loop = asyncio.get_running_loop()
        cpu, at = time.process_time(), loop.time()
        while True:
            await asyncio.sleep(WATCH_S)
            now_cpu, now = time.process_time(), loop.time()
            busy = (now_cpu - cpu) / max(now - at, 1e-9)
            if busy > SPILL_AT and not self.live and self.exits < MAX_EXITS:
                self._spawn()
            cpu, at = now_cpu, now

    def _spawn(self) -> WorkerProcess:
        ours, theirs = socket.socketpair()
        try:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "autorubric_cli.judges.transports.worker_main",
                    str(theirs.fileno()),
                ]
                + (["litellm"] if needs_litellm(self.specs) else []),
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,  # stdout is the report's (`--format json`)
            )
        finally:
            theirs.close()
        worker = WorkerProcess(process, ours)
        self.workers.append(worker)
        with contextlib.suppress(RuntimeError):  # no event loop yet (`start`): connect later
            worker.connecting = asyncio.get_running_loop().create_task(self._connect(worker))
        return worker

    @property
    def live(self) -> list[WorkerProcess]:
        return [w for w in self.workers if w.alive]

    async def call(self, spec: JudgeSpec, call: Call, messages: list[dict[str, Any]]) -> Completion:
        """`call` answered in a worker, `messages` (with cache marks) sent for its own."""
        worker = await self._pick()
        call_id = next(self._ids)
        reply: asyncio.Future[Completion | Exception] = asyncio.get_running_loop().create_future()
        worker.pending[call_id] = reply
        assert worker.writer is not None
        shape = [call.response_format, call.dialect, call.reasks, list(call.samples)]
        worker.writer.write(encode(["call", call_id, spec.judge_id, messages, *shape]))
        try:
            outcome = await reply
        except asyncio.CancelledError:
            if worker.pending.pop(call_id, None) is not None and worker.alive:
                worker.writer.write(encode(["cancel", call_id]))
            raise
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def _pick(self) -> WorkerProcess:
        live = [w for w in self.live if w.ready] if self.spill else self.live
        if not live:
            if self.exits >= MAX_EXITS:
                raise WorkerPoolFailed(
                    f"judge worker processes exited {self.exits} times (their errors are above)"
                )
            live = [self._spawn()]
        worker = min(live, key=lambda w: len(w.pending))
        if worker.connecting is None:
            worker.connecting = asyncio.ensure_future(self._connect(worker))
        await asyncio.shield(worker.connecting)
        return worker

    async def _connect(self, worker: WorkerProcess) -> None:
        reader, worker.writer = await asyncio.open_connection(sock=worker.sock, limit=LINE_LIMIT)
        specs = [s.model_dump(mode="json") for s in self.specs]
        worker.writer.write(encode(["judges", self.timeout, specs]))
        worker.reading = asyncio.create_task(self._read(worker, reader))

    async def _read(self, worker: WorkerProcess, reader: asyncio.StreamReader) -> None:
        with contextlib.suppress(ConnectionError):
            while line := await reader.readline():
                message = orjson.loads(line)
                if message[0] == "cpu":
                    self._cpu_report(worker, message[1])
                    continue
                reply = worker.pending.pop(message[1], None)
                if reply is not None and not reply.done():
                    reply.set_result(outcome_of(message))
        self._exited(worker)

    def _cpu_report(self, worker: WorkerProcess, cpu: float) -> None:
        now = time.monotonic()
        if worker.cpu is not None:
            worker.busy = (cpu - worker.cpu) / max(now - worker.cpu_at, 1e-9)
        worker.cpu, worker.cpu_at = cpu, now
        live = self.live
        if self.spill and len(live) < self.maximum and all(w.busy > GROW_AT for w in live):
            self._spawn()

    def _exited(self, worker: WorkerProcess) -> None:
        """The worker's socket closed: on purpose (closing) or because the worker exited."""
        worker.alive = False
        if self.closing:
            return
        self.exits += 1
        code = worker.process.poll()
        failure = JudgeFailure(
            FailureKind.WORKER, f"judge worker process exited (code {code}) during the call"
        )
        for reply in worker.pending.values():
            if not reply.done():
                reply.set_result(failure)
        worker.pending.clear()

    async def aclose(self) -> None:
        """Close every socket (workers exit on end of file) and wait for the workers."""
        self.closing = True
        if self.watching is not None:
            self.watching.cancel()
        # one still importing litellm (it has not reported yet) has no call to finish, and
        # would notice the end only once its import is done: stop it at once
        waits = [CLOSE_WAIT_S if worker.cpu is not None else 0.0 for worker in self.workers]
        for worker in self.workers:
            if worker.writer is not None:
                worker.writer.close()
            worker.sock.close()
        for worker, wait in zip(self.workers, waits, strict=True):
            if worker.reading is not None:
                worker.reading.cancel()
            await asyncio.to_thread(stop_process, worker.process, wait)

    def terminate(self) -> None:
        """Without an event loop (the run never started): stop every worker now."""
        self.closing = True
        for worker in self.workers:
            worker.sock.close()
            stop_process(worker.process, wait=0.0)


def stop_process(process: subprocess.Popen[bytes], wait: float = CLOSE_WAIT_S) -> None:
    """Wait for a worker told to exit; kill it if it does not within `wait` seconds."""
    try:
        process.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class WorkerTransport:
    """A real judge whose calls run in the pool's worker processes when it takes them, else
    in this process (through `inner`, the judge's direct transport: native or litellm)."""

    def __init__(self, spec: JudgeSpec, pool: WorkerPool, inner: Transport | None = None) -> None:
        self.spec = spec
        self.pool = pool
        self.inner = inner or LiteLLMTransport(spec, pool.timeout)

    async def complete(self, call: Call) -> Completion:
        if self.pool.takes_calls:
            sent = cache_marked(self.spec, call.messages, prefix_of(call.request))
            return await self.pool.call(self.spec, call, sent)
        completion = await self.inner.complete(call)
        self.pool.watch()
        return completion

    async def aclose(self) -> None:
        """Close the in-process transport (the pool is the grader's to close)."""
        await self.inner.aclose()
