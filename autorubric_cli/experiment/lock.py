"""One writer per experiment directory (docs/guides/batches.md): an OS file lock on `.lock` inside
it.

`run`, `resume` and `merge` hold an exclusive `flock` for as long as they may write. The kernel
drops the lock when the holding process ends, however it ends (SIGKILL included), so there is
never a stale lock to clean up; and the lock file is never deleted, since deleting it would let
a third process lock a fresh file while the holder still writes. The holder writes its pid into
the file so that a second writer can say who holds it. `report` takes no lock: it only reads
complete lines and atomically replaced files.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from autorubric_cli.errors import InputError, writing

LOCK_FILE = ".lock"
PID_WAIT_S = 0.5  # the holder writes its pid right after locking; wait that long to read it


class DirectoryInUse(InputError):
    """Another process holds the directory's lock."""


_held: dict[Path, int] = {}  # directories this process holds the lock of -> nesting depth


@contextlib.contextmanager
def writer_lock(directory: Path) -> Iterator[None]:
    """Hold the directory's exclusive lock, or raise DirectoryInUse at once (no waiting).

    Re-entrant within a process, so the CLI can lock before its slow imports and the code it
    then calls locks again for free."""
    key = directory.resolve()
    if key in _held:
        _held[key] += 1
        try:
            yield
        finally:
            _held[key] -= 1
        return
    path = directory / LOCK_FILE
    with writing(path):
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    try:
        _lock_or_raise(fd, fcntl.LOCK_EX, directory)
        with writing(path):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        _held[key] = 1
        try:
            yield
        finally:
            del _held[key]
            with contextlib.suppress(OSError):  # a released lock names nobody
                os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # releases the lock


@contextlib.contextmanager
def lock_early(directory: Path) -> Iterator[None]:
    """`resume`'s lock, taken before the command's slow imports so that a second writer exits
    at once; only on an experiment directory (else the command reports what is wrong)."""
    if (directory / "manifest.json").is_file():
        with writer_lock(directory):
            yield
    else:
        yield


@contextlib.contextmanager
def claim_new_directory(directory: Path, not_empty: str) -> Iterator[None]:
    """Create the directory (or take an empty one) and hold its writer lock.

    A directory that was never locked is checked before the lock file is made in it, so a wrong
    path gets nothing written into it; under the lock it is checked again (a racing writer).
    `not_empty` is the message when it holds anything."""
    if not (directory / LOCK_FILE).exists():
        _refuse_used(directory, not_empty)
    with writing(directory):
        directory.mkdir(parents=True, exist_ok=True)
    with writer_lock(directory):
        _refuse_used(directory, not_empty)
        yield


def _refuse_used(directory: Path, message: str) -> None:
    if directory.is_dir() and any(p.name != LOCK_FILE for p in directory.iterdir()):
        raise InputError(message, path=str(directory))


@contextlib.contextmanager
def no_writer(directory: Path) -> Iterator[None]:
    """While reading a directory another command may write (merge's inputs): a shared lock,
    so no writer runs meanwhile. Needs no write access: with no lock file, nobody ever
    locked it, so there is nothing to wait for."""
    try:
        fd = os.open(directory / LOCK_FILE, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        yield
        return
    try:
        _lock_or_raise(fd, fcntl.LOCK_SH, directory)
        yield
    finally:
        os.close(fd)


def writer_active(directory: Path) -> bool:
    """Whether another process holds the directory's writer lock (a run, resume or merge at
    work): then a reader such as `report` writes nothing into it."""
    if directory.resolve() in _held:
        return False  # this process is the writer
    try:
        fd = os.open(directory / LOCK_FILE, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False  # never locked
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # releases the shared lock taken to look
    return False


def _lock_or_raise(fd: int, mode: int, directory: Path) -> None:
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = holder_pid(fd)
        who = f"process {holder}" if holder is not None else "another process"
        raise DirectoryInUse(
            f"experiment directory is in use by {who} (a run, resume or merge); "
            "wait for it to finish or stop it, then try again",
            path=str(directory),
        ) from None


def holder_pid(fd: int) -> int | None:
    """The pid the holder wrote; it writes it just after locking, so allow it a moment. A pid
    left by a killed writer names no live process (then readers hold it): None."""
    deadline = time.monotonic() + PID_WAIT_S
    while True:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        if text.isdigit() and _alive(int(text)):
            return int(text)
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.01)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by another user
        return True
    return True
