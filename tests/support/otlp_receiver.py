"""A loopback OTLP/HTTP trace receiver: `POST /v1/traces` bodies decoded as the protobuf
`ExportTraceServiceRequest` with `opentelemetry-proto`, as a collector reads them."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tests.support.loopback import LoopbackSite


@dataclass
class ReceivedSpan:
    name: str
    span_id: bytes
    parent_span_id: bytes
    trace_id: bytes
    kind: int
    attributes: dict[str, Any]
    status_code: int
    resource: dict[str, Any]
    status_message: str = ""
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (name, attributes)


def value_of(value: AnyValue) -> Any:
    which = value.WhichOneof("value")
    if which == "array_value":
        return [value_of(v) for v in value.array_value.values]
    return None if which is None else getattr(value, which)


def attributes_of(pairs: Any) -> dict[str, Any]:
    return {pair.key: value_of(pair.value) for pair in pairs}


@dataclass
class OtlpReceiver:
    """Every span received, with its resource's attributes; `raw` keeps each request body."""

    spans: list[ReceivedSpan] = field(default_factory=list)
    raw: list[bytes] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    site: LoopbackSite = field(default_factory=lambda: LoopbackSite("otlp-receiver"))

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.site.port}"

    async def _traces(self, request: web.Request) -> web.Response:
        body = await request.read()
        message = ExportTraceServiceRequest()
        message.ParseFromString(body)
        with self.lock:
            self.raw.append(body)
            self.headers.append(dict(request.headers))
            for resource_spans in message.resource_spans:
                resource = attributes_of(resource_spans.resource.attributes)
                for scope in resource_spans.scope_spans:
                    self.spans.extend(_received(span, resource) for span in scope.spans)
        answer = ExportTraceServiceResponse().SerializeToString()
        return web.Response(body=answer, content_type="application/x-protobuf")

    def _app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/traces", self._traces)
        return app

    def __enter__(self) -> OtlpReceiver:
        self.site.start(self._app)
        return self

    def __exit__(self, *_: object) -> None:
        self.site.stop()

    def named(self, prefix: str) -> list[ReceivedSpan]:
        return [s for s in self.spans if s.name.startswith(prefix)]

    def as_json(self) -> str:
        """Every request as protobuf JSON: what a test searches for a leaked string."""
        texts = []
        for body in self.raw:
            message = ExportTraceServiceRequest()
            message.ParseFromString(body)
            texts.append(str(MessageToDict(message)))
        return "\n".join(texts)


def _received(span: Any, resource: dict[str, Any]) -> ReceivedSpan:
    return ReceivedSpan(
        name=span.name,
        span_id=span.span_id,
        parent_span_id=span.parent_span_id,
        trace_id=span.trace_id,
        kind=span.kind,
        attributes=attributes_of(span.attributes),
        status_code=span.status.code,
        resource=resource,
        status_message=span.status.message,
        events=[(event.name, attributes_of(event.attributes)) for event in span.events],
    )
