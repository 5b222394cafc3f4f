"""A judge worker process: makes judge calls for the grader over one socket (workers.py).

`python -m autorubric_cli.judges.transports.worker_main FD [litellm]`, FD being the worker's end of
a socket pair. With `litellm` it imports litellm first (the grader's calls wait in the socket
meanwhile); it answers every call through the judge's direct transport (native or litellm,
`direct.py`), the same one the in-process path uses. It exits when the
grader closes the socket, or dies: it never outlives the run. Ctrl-C is the grader's to handle
(it stops gracefully and closes the workers), so the worker ignores SIGINT.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import sys
import time
from typing import Any

import orjson

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.request import Call, Completion, Transport
from autorubric_cli.judges.transports.direct import close_clients, direct_transport
from autorubric_cli.judges.transports.litellm import load_litellm
from autorubric_cli.judges.transports.worker_wire import LINE_LIMIT, Asking, encode, reply_to

CPU_REPORT_S = 1.0


class Worker:
    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.timeout = 60.0
        self.transports: dict[str, Transport] = {}
        self.calls: dict[int, asyncio.Task[None]] = {}

    def handle(self, message: list[Any]) -> None:
        kind = message[0]
        if kind == "judges":
            self.timeout = message[1]
            specs = map(JudgeSpec.model_validate, message[2])
            self.transports = {s.judge_id: direct_transport(s, self.timeout) for s in specs}
        elif kind == "call":
            call_id, judge_id, messages, response_format, dialect, reasks, samples = message[1:8]
            asking = Asking(tuple(samples))
            call = Call(messages, response_format, asking, dialect, reasks)  # type: ignore[arg-type]
            task = asyncio.create_task(self.answer(call_id, judge_id, call))
            self.calls[call_id] = task
            task.add_done_callback(lambda _: self.calls.pop(call_id, None))
        elif kind == "cancel" and message[1] in self.calls:
            self.calls[message[1]].cancel()

    async def answer(self, call_id: int, judge_id: str, call: Call) -> None:
        outcome: Completion | BaseException
        try:
            outcome = await self.transports[judge_id].complete(call)
        except Exception as exc:
            outcome = exc
        self.writer.write(encode(reply_to(call_id, outcome)))

    async def report_cpu(self) -> None:
        """At once (litellm is imported if needed: the grader may send calls), then each second."""
        while True:
            self.writer.write(encode(["cpu", time.process_time()]))
            await asyncio.sleep(CPU_REPORT_S)


async def serve(sock: socket.socket, litellm: bool) -> None:
    if litellm:
        load_litellm()
    reader, writer = await asyncio.open_connection(sock=sock, limit=LINE_LIMIT)
    worker = Worker(writer)
    reporter = asyncio.create_task(worker.report_cpu())
    try:
        while line := await reader.readline():
            worker.handle(orjson.loads(line))
    finally:
        reporter.cancel()
        for task in list(worker.calls.values()):
            task.cancel()
        await asyncio.gather(*worker.calls.values(), return_exceptions=True)
        for transport in worker.transports.values():
            await transport.aclose()
        await close_clients()
        writer.close()


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sock = socket.socket(fileno=int(sys.argv[1]))
    with contextlib.suppress(ConnectionError):  # the grader is gone: nothing left to answer
        asyncio.run(serve(sock, "litellm" in sys.argv[2:]))


if __name__ == "__main__":
    main()
