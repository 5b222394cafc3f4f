"""Trace spans of a run, its items and each judge call attempt: what the run code opens.

The run code knows nothing of OpenTelemetry. It opens spans through the process's tracer, which
is a no-op until `install` sets another: `autorubric_cli.export.otel` installs one that exports
over OTLP (docs/guides/tracing.md). Spans nest through the context they are opened in: a call
opened inside an item's task is that item's child.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import AbstractContextManager
from contextvars import ContextVar
from typing import Protocol

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.judges.request import CallRequest, Completion


class RunSpan(Protocol):
    def finish(self, status: str, error: str | None = None) -> None: ...


class ItemSpan(Protocol):
    def record(self, record: ItemRecord) -> None: ...


class CallSpan(Protocol):
    def record(self, completion: Completion) -> None: ...


class Tracer(Protocol):
    """Opens the three spans; a call span's context manager marks an exception as the error."""

    def run(self, name: str, rubric: str) -> AbstractContextManager[RunSpan]: ...

    def item(self, item_id: str) -> AbstractContextManager[ItemSpan]: ...

    def call(
        self, spec: JudgeSpec, request: CallRequest, messages: list[dict[str, str]], attempt: int
    ) -> AbstractContextManager[CallSpan]: ...


class _Nothing:
    """Every span of the no-op tracer."""

    def finish(self, status: str, error: str | None = None) -> None:
        pass

    def record(self, _: object) -> None:
        pass


class NoTracer:
    def run(self, name: str, rubric: str) -> AbstractContextManager[RunSpan]:
        return contextlib.nullcontext(NOTHING)

    def item(self, item_id: str) -> AbstractContextManager[ItemSpan]:
        return contextlib.nullcontext(NOTHING)

    def call(
        self, spec: JudgeSpec, request: CallRequest, messages: list[dict[str, str]], attempt: int
    ) -> AbstractContextManager[CallSpan]:
        return contextlib.nullcontext(NOTHING)


NOTHING = _Nothing()
_installed: list[Tracer] = [NoTracer()]


def tracer() -> Tracer:
    return _installed[-1]


@contextlib.contextmanager
def installed(active: Tracer) -> Iterator[Tracer]:
    """`active` is the process's tracer inside the block (one process-wide, as OpenTelemetry's
    own tracer provider: a run's worker thread sees it too)."""
    _installed.append(active)
    try:
        yield active
    finally:
        _installed.remove(active)


def call_span(
    spec: JudgeSpec, request: CallRequest, messages: list[dict[str, str]], attempt: int
) -> AbstractContextManager[CallSpan]:
    """The span of one judge call attempt (a call-cache hit included)."""
    return tracer().call(spec, request, messages, attempt)


def item_span(item_id: str) -> AbstractContextManager[ItemSpan]:
    return tracer().item(item_id)


def run_span(name: str, rubric: str) -> AbstractContextManager[RunSpan]:
    return tracer().run(name, rubric)


_stage: ContextVar[str | None] = ContextVar("autorubric_cascade_stage", default=None)


@contextlib.contextmanager
def cascade_stage(stage: str) -> Iterator[None]:
    """Calls made inside the block (their tasks inherit the context) belong to this stage of a
    cascade (`first` or `then`); their spans say so."""
    token = _stage.set(stage)
    try:
        yield
    finally:
        _stage.reset(token)


def current_stage() -> str | None:
    """The cascade stage of the calls made here, None outside a cascade."""
    return _stage.get()
