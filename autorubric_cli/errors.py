"""User-facing input errors: one line naming file, line and key."""

from __future__ import annotations

import contextlib
import difflib
import os
from collections.abc import Iterable, Iterator


def unknown_name_message(what: str, name: str, allowed: Iterable[str]) -> str:
    """ "unknown key `requirment`; did you mean `requirement`?" when a known name is close."""
    known = list(allowed)
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if close:
        return f"unknown {what} `{name}`; did you mean `{close[0]}`?"
    return f"unknown {what} `{name}` (one of: {', '.join(known)})"


class InputError(Exception):
    """Invalid input or usage. Rendered as `file:line: key: message` and exit code 2."""

    def __init__(
        self, message: str, *, path: str | None = None, line: int | None = None, key: str = ""
    ) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.key = key
        super().__init__(self.one_line())

    def one_line(self) -> str:
        where = self.path or ""
        if self.line is not None:
            where = f"{where}:{self.line}"
        parts = [p for p in (where, self.key) if p]
        prefix = ": ".join(parts)
        text = " ".join(self.message.split())
        return f"{prefix}: {text}" if prefix else text


class StorageError(InputError, OSError):
    """A write to disk failed: a full disk, a file-size limit, an unwritable directory.

    An InputError (one line, exit 2: the user frees space or fixes permissions and resumes) and
    an OSError (what the failed call raised), so callers that handle either keep working.
    """


@contextlib.contextmanager
def writing(path: str | os.PathLike[str]) -> Iterator[None]:
    """Turn an OSError raised while writing `path` into a one-line StorageError."""
    try:
        yield
    except StorageError:
        raise
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise StorageError(f"cannot write: {reason}", path=str(path)) from None
