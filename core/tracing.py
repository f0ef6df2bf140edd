"""Optional OpenTelemetry tracing: spans for HTTP requests, Celery tasks and graph nodes.

Off unless ``OTEL_ENABLED`` is true (it defaults to true when ``OTEL_EXPORTER_OTLP_ENDPOINT``
is set). The ``opentelemetry`` packages are imported only when it is on. Spans go to the OTLP
endpoint (needs ``opentelemetry-exporter-otlp-proto-http``, not installed by default: it pulls
in protobuf) or, with no endpoint, to the console. The standard ``OTEL_*`` variables
(``OTEL_SERVICE_NAME``, ``OTEL_EXPORTER_OTLP_HEADERS``, …) are read by the SDK itself.

Span attributes carry ids only (tenant schema, path, task name, node name), never text.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])

_lock = threading.Lock()
_tracer: Any = None  # an opentelemetry Tracer once tracing_setup() ran


def tracing_setup(*, exporter: Any = None) -> None:
    """Install a tracer provider for this process. ``exporter``: tests pass an in-memory one."""
    global _tracer
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    with _lock:
        provider = TracerProvider(resource=Resource.create({"service.name": "countersign"}))
        if exporter is not None:
            provider.add_span_processor(SimpleSpanProcessor(exporter))
        else:
            provider.add_span_processor(BatchSpanProcessor(_default_exporter()))
        _tracer = provider.get_tracer("countersign")


def tracing_setup_from_settings() -> None:
    """Set tracing up once per process when ``OTEL_ENABLED``; a no-op otherwise."""
    if settings.OTEL_ENABLED and _tracer is None:
        tracing_setup()


def tracing_reset() -> None:
    global _tracer
    with _lock:
        _tracer = None


def _default_exporter() -> Any:
    import os

    if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError as error:
            raise RuntimeError(
                "OTEL_EXPORTER_OTLP_ENDPOINT is set: pip install "
                "opentelemetry-exporter-otlp-proto-http"
            ) from error
        return OTLPSpanExporter()
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter

    return ConsoleSpanExporter()


@contextmanager
def span(name: str, **attributes: Any) -> Iterator[Any]:
    """A span around the block when tracing is on (else nothing); yields the span or None."""
    if _tracer is None:
        yield None
        return
    with _tracer.start_as_current_span(
        name, attributes=attributes, record_exception=False, set_status_on_exception=False
    ) as current:
        try:
            yield current
        except Exception as error:
            if not _is_control_flow(error):
                from opentelemetry.trace import Status, StatusCode

                current.record_exception(error)
                current.set_status(Status(StatusCode.ERROR, error.__class__.__name__))
            raise


def _is_control_flow(error: Exception) -> bool:
    """LangGraph pauses a run for approval by raising; that is not a failure."""
    from langgraph.errors import GraphBubbleUp

    return isinstance(error, GraphBubbleUp)


def traced_node(name: str, node: F) -> F:
    """The graph node wrapped in a ``graph.node <name>`` span (LangGraph reads the signature
    through ``functools.wraps``, so a node that takes ``config`` still gets it)."""

    @functools.wraps(node)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        with span(f"graph.node {name}", **{"langgraph.node": name}):
            return node(*args, **kwargs)

    return wrapped  # type: ignore[return-value]


class TracingMiddleware:
    """A span per HTTP request. First in MIDDLEWARE, so probes and metrics are traced too."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        if not settings.OTEL_ENABLED:
            raise MiddlewareNotUsed
        tracing_setup_from_settings()
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with span(f"HTTP {request.method}", **{"http.request.method": str(request.method)}) as s:
            response = self.get_response(request)
            if s is not None:
                s.set_attribute("url.path", request.path)
                s.set_attribute("http.response.status_code", response.status_code)
                tenant = getattr(request, "tenant", None)
                if tenant is not None:
                    s.set_attribute("countersign.tenant", tenant.schema_name)
            return response


def node(name: str, function: F) -> F:
    """``function`` traced as a graph node when tracing is on, untouched when it is off."""
    return traced_node(name, function) if _tracer is not None else function


_task_spans: dict[str, tuple[Any, object]] = {}


def task_span_start(*, task_id: str, task_name: str) -> None:
    """Open the span of a Celery task (task_prerun); ``task_span_end`` closes it."""
    if _tracer is None:
        return
    from opentelemetry import context, trace

    current = _tracer.start_span(f"celery.task {task_name}", attributes={"celery.task": task_name})
    token = context.attach(trace.set_span_in_context(current))
    with _lock:
        _task_spans[task_id] = (current, token)


def task_span_end(*, task_id: str, failed: bool) -> None:
    with _lock:
        entry = _task_spans.pop(task_id, None)
    if entry is None:
        return
    from opentelemetry import context
    from opentelemetry.trace import Status, StatusCode

    current, token = entry
    if failed:
        current.set_status(Status(StatusCode.ERROR))
    context.detach(token)  # type: ignore[arg-type]
    current.end()
