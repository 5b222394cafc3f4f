"""OpenTelemetry traces of a run over OTLP/HTTP (docs/guides/tracing.md), through the official
SDK and exporter (the `otel` extra).

`otel_tracing()` installs a tracer for the block (judges/tracing.py) on a private tracer provider
(a program that embeds us keeps its own global one). Spans go to a `BatchSpanProcessor`: the
exporter sends them from its own thread, so the run never waits on the collector. The standard
`OTEL_EXPORTER_OTLP_*` and `OTEL_BSP_*` variables configure both.

A collector that is down or slow costs one warning line: the SDK's own log records (one per
failed batch, and retry notices) are caught, the first becomes our warning, and the end of the
run waits for the last spans only until the collector is known to be down, at most
`FLUSH_S` seconds.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
from collections.abc import Iterator
from typing import Any

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from autorubric_cli import __version__
from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.export.genai import (
    call_attributes,
    call_name,
    capture_content,
    completion_attributes,
    error_text,
    error_type,
    exception_attributes,
    input_messages,
    item_attributes,
    output_messages,
)
from autorubric_cli.judges.policy.failures import redact
from autorubric_cli.judges.request import CallRequest, Completion
from autorubric_cli.judges.tracing import current_stage, installed

FLUSH_S = 2.0
OS_ERROR = re.compile(r"\[Errno -?\d+\] ([^'\"()]+)")
logger = logging.getLogger("autorubric_cli.export")


class ExportTrouble(logging.Handler):
    """Takes the SDK's log records: the first warning becomes ours, one line; the rest are
    dropped. `over` is set once there is nothing left to wait for: an export failed, or the
    last spans were sent."""

    def __init__(self, endpoint: str) -> None:
        super().__init__(logging.WARNING)
        self.endpoint = endpoint
        self.warned = False
        self.over = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.warn(reason(record.getMessage()))

    def warn(self, why: str) -> None:
        self.over.set()
        if not self.warned:
            self.warned = True
            logger.warning(
                "traces: cannot export to %s (%s); the run goes on without them",
                self.endpoint,
                why,
            )


def reason(message: str) -> str:
    """The SDK's message, short: an OS error's own words (`Connection refused`) when it carries
    one, else its first 160 characters (`... code: 401, reason: Unauthorized`)."""
    found = OS_ERROR.findall(message)
    return found[-1] if found else " ".join(message.split())[:160]


class _RunSpan:
    def __init__(self, span: Span) -> None:
        self.span = span

    def finish(self, status: str, error: str | None = None) -> None:
        self.span.set_attribute("autorubric.status", status)
        if status == "failed":
            self.span.set_status(Status(StatusCode.ERROR, redact(error or "the run failed", None)))


class _ItemSpan:
    def __init__(self, span: Span) -> None:
        self.span = span

    def record(self, record: ItemRecord) -> None:
        self.span.set_attributes(item_attributes(record))
        if record.status == "error":
            self.span.set_status(Status(StatusCode.ERROR, redact(record.error or "error", None)))


class _CallSpan:
    def __init__(self, span: Span, content: bool) -> None:
        self.span = span
        self.content = content

    def record(self, completion: Completion) -> None:
        self.span.set_attributes(completion_attributes(completion))
        if self.content:
            self.span.set_attribute("gen_ai.output.messages", output_messages(completion))


class OtelTracer:
    """judges/tracing.py's Tracer, over an OpenTelemetry tracer."""

    def __init__(self, tracer: trace.Tracer, content: bool) -> None:
        self.tracer = tracer
        self.content = content

    @contextlib.contextmanager
    def _span(self, name: str, kind: SpanKind, attributes: dict[str, Any]) -> Iterator[Span]:
        """A current span; an exception out of the block is its `error.type`, its status
        description and an `exception` event (the OpenTelemetry conventions), with the error's
        text (`genai.error_text`: never a prompt, a reply or a key)."""
        with self.tracer.start_as_current_span(
            name,
            kind=kind,
            attributes=attributes,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            try:
                yield span
            except BaseException as exc:
                span.set_attribute("error.type", error_type(exc))
                span.set_status(Status(StatusCode.ERROR, error_text(exc)))
                span.add_event("exception", exception_attributes(exc))
                raise

    @contextlib.contextmanager
    def run(self, name: str, rubric: str) -> Iterator[_RunSpan]:
        attributes = {"autorubric.experiment": name, "autorubric.rubric": rubric}
        with self._span("autorubric run", SpanKind.INTERNAL, attributes) as span:
            yield _RunSpan(span)

    @contextlib.contextmanager
    def item(self, item_id: str) -> Iterator[_ItemSpan]:
        with self._span("autorubric item", SpanKind.INTERNAL, {"autorubric.item.id": item_id}) as s:
            yield _ItemSpan(s)

    @contextlib.contextmanager
    def call(
        self, spec: JudgeSpec, request: CallRequest, messages: list[dict[str, str]], attempt: int
    ) -> Iterator[_CallSpan]:
        attributes = call_attributes(spec, request, attempt)
        stage = current_stage()
        if stage is not None:
            attributes["autorubric.cascade.stage"] = stage
        if self.content:
            attributes["gen_ai.input.messages"] = input_messages(messages)
        with self._span(call_name(spec), SpanKind.CLIENT, attributes) as span:
            yield _CallSpan(span, self.content)


def resource() -> Resource:
    """`service.name` autorubric unless OTEL_SERVICE_NAME says otherwise."""
    ours = {"service.version": __version__}
    if not os.environ.get("OTEL_SERVICE_NAME"):
        ours["service.name"] = "autorubric"
    return Resource.create(ours)


@contextlib.contextmanager
def otel_tracing() -> Iterator[OtelTracer]:
    """Trace every run, item and judge call inside the block; flush (bounded) at its end."""
    exporter = OTLPSpanExporter()
    trouble = ExportTrouble(exporter._endpoint)
    sdk_logger = logging.getLogger("opentelemetry")
    saved = sdk_logger.handlers[:], sdk_logger.propagate
    sdk_logger.handlers, sdk_logger.propagate = [trouble], False
    provider = TracerProvider(resource=resource(), shutdown_on_exit=False)
    provider.add_span_processor(BatchSpanProcessor(exporter))
    tracer = OtelTracer(provider.get_tracer("autorubric_cli", __version__), capture_content())
    try:
        with installed(tracer):
            yield tracer
    finally:
        if _flush(provider, exporter, trouble):
            # else the SDK's thread may still log (its retries end): ours stays, and is silent
            sdk_logger.handlers, sdk_logger.propagate = saved


def _flush(provider: TracerProvider, exporter: OTLPSpanExporter, trouble: ExportTrouble) -> bool:
    """Send the spans still queued, in a thread, until they are sent, an export fails or FLUSH_S
    passed; then stop the exporter's retries. True when the SDK's threads are done."""
    done = threading.Event()

    def shutdown() -> None:
        provider.shutdown()
        done.set()
        trouble.over.set()

    threading.Thread(target=shutdown, name="autorubric-otel-flush", daemon=True).start()
    if not trouble.over.wait(FLUSH_S):
        trouble.warn(f"the last spans were not taken within {FLUSH_S:g} s")
    if not done.is_set():
        exporter.shutdown()  # ends a retry wait at once: the processor's thread then finishes
    return done.wait(FLUSH_S)
