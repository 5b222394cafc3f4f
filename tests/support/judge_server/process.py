"""`JudgeServerProcess`: the same server in a separate process (benchmarks measure client CPU
alone)."""

from __future__ import annotations

import multiprocessing
import time
from typing import Any

from tests.support.judge_server.server import JudgeServer


def _serve_forever(options: dict[str, Any], port_pipe: Any, stop_event: Any) -> None:
    with JudgeServer(**options) as server:
        port_pipe.send(server.port)
        stop_event.wait()
        latencies = [r.answered_at - r.received_at for r in server.requests if r.answered_at]
        port_pipe.send((server.request_count, server.max_in_flight, time.process_time(), latencies))


class JudgeServerProcess:
    """`JudgeServer` in a child process; `cpu_s`, counts and the answered requests' latencies
    (received to answered, queueing at the server included) are read back on stop()."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.port = 0
        self.request_count = 0
        self.max_in_flight = 0
        self.cpu_s = 0.0
        self.latencies: list[float] = []
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
            read = self._parent.recv()
            self.request_count, self.max_in_flight, self.cpu_s, self.latencies = read
        self._process.join(10)
