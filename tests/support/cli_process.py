"""`start_cli()`: `autorubric ARGS` as a process of its own, for tests where the process is the
point (SIGKILL, SIGINT/SIGTERM, a lock held by another process, worker children).

The process is forked from a per-xdist-worker fork server that has already imported litellm
and the CLI (`multiprocessing`'s forkserver with `tests.support.cli_preload` preloaded), so a
start costs a fork instead of litellm's 2-5 s import. It is still a separate process with its
own pid, environment, working directory, stdout and stderr, killed and reaped like any other.
Start-up import tests must not use this (they start a fresh interpreter on purpose).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

_CONTEXT = multiprocessing.get_context("forkserver")
# pytest too: each child re-runs the parent's main script (the `pytest` entry point), which is
# then an import already done instead of a fresh one.
_CONTEXT.set_forkserver_preload(["tests.support.cli_preload", "pytest"])


def _child(args: list[str], env: dict[str, str], cwd: str, out: str, err: str) -> None:
    """In the forked process: the user's environment, cwd and output files, then the CLI."""
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    for fd, path in ((1, out), (2, err)):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.argv = ["autorubric", *args]
    from autorubric_cli.cli.app import main

    try:
        main()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


class CliProcess:
    """The subset of `subprocess.Popen` the tests use: pid, poll, wait, kill, send_signal,
    communicate (stdout and stderr as bytes) and returncode (-N when killed by signal N)."""

    def __init__(self, args: list[str], env: Mapping[str, str], cwd: Path | None) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="autorubric-cli-")
        self._out = Path(self._dir.name) / "stdout"
        self._err = Path(self._dir.name) / "stderr"
        where = str(cwd or Path.cwd())
        self._process = _CONTEXT.Process(
            target=_child, args=(args, dict(env), where, str(self._out), str(self._err))
        )
        self._process.start()

    @property
    def pid(self) -> int:
        assert self._process.pid is not None
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.exitcode

    def poll(self) -> int | None:
        return self._process.exitcode

    def wait(self, timeout: float | None = None) -> int:
        self._process.join(timeout)
        if self._process.exitcode is None:
            raise subprocess.TimeoutExpired("autorubric", timeout or 0)
        return self._process.exitcode

    def send_signal(self, sig: int) -> None:
        if self._process.exitcode is None:
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def communicate(self, timeout: float | None = None) -> tuple[bytes, bytes]:
        self.wait(timeout)
        out, err = (p.read_bytes() if p.exists() else b"" for p in (self._out, self._err))
        with contextlib.suppress(OSError):
            self._dir.cleanup()
        return out, err


def start_cli(*args: object, env: Mapping[str, str], cwd: Path | None = None) -> CliProcess:
    """Start `autorubric *args` in its own process with exactly the environment `env`."""
    return CliProcess([str(a) for a in args], env, cwd)
