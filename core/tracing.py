"""Optional OpenTelemetry tracing: spans for HTTP requests, Celery tasks and graph nodes.

Off unless ``OTEL_ENABLED`` is true (it defaults to true when ``OTEL_EXPORTER_OTLP_ENDPOINT``
is set). The ``opentelemetry`` packages are imported only when it is on. Spans go to the OTLP
endpoint (needs ``opentelemetry-exporter-otlp-proto-http``, not installed by default: it pulls
in protobuf) or, with no endpoint, to the console. The standard ``OTEL_*`` variables
(``OTEL_SERVICE_NAME``, ``OTEL_EXPORTER_OTLP_HEADERS``, …) are read by the SDK itself.

Span attributes carry ids only (tenant schema, path, task name, node name), never text.

**One trace per turn.** The W3C ``traceparent`` of the span that queues a task travels in the
task's message headers (``inject_into_headers``, Celery's ``before_task_publish``), so the
worker's task span continues the sender's trace; headers are part of the message, so a
redelivered or retried task stays in it. A pending action keeps the ``traceparent`` of the
turn that proposed it (``current_traceparent``), and its resume is queued under that context
(``queued``, with a link to whoever decided), so the resume belongs to the turn's trace too.
Log lines name the current trace and span (core/logs.py) and a turn's ``done`` event its trace.

Off, every helper here returns at its first line (``_tracer is None``), nothing is imported.
"""

from __future__ import annotations

import functools
import logging
import os
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
        # OTEL_SERVICE_NAME, when set, names the service (say, web and worker apart).
        named = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": "countersign"}
        provider = TracerProvider(resource=Resource.create(named))
        if exporter is not None:
            provider.add_span_processor(SimpleSpanProcessor(exporter))
        else:
            provider.add_span_processor(BatchSpanProcessor(_default_exporter()))
        _tracer = provider.get_tracer("countersign")
    from core import logs

    logs.trace_ids = current_ids


def tracing_setup_from_settings() -> None:
    """Set tracing up once per process when ``OTEL_ENABLED``; a no-op otherwise."""
    if settings.OTEL_ENABLED and _tracer is None:
        tracing_setup()


def tracing_reset() -> None:
    global _tracer
    from core import logs

    with _lock:
        _tracer = None
    logs.trace_ids = None


def _default_exporter() -> Any:
    if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError as error:
            raise RuntimeError(
                "OTEL_EXPORTER_OTLP_ENDPOINT is set: pip install "
                "opentelemetry-exporter-otlp-proto-http"
            ) from error
        return OTLPSpanExporter()
    import sys

    from opentelemetry.sdk.trace.export import ConsoleSpanExporter

    # One JSON object per line, on the process's real stdout: Celery redirects ``sys.stdout``
    # into its logger, which would wrap (and split) every span.
    return ConsoleSpanExporter(
        out=sys.__stdout__ or sys.stdout,
        formatter=lambda finished: finished.to_json(indent=None) + "\n",
    )


def enabled() -> bool:
    return _tracer is not None


def current_ids() -> dict[str, str]:
    """``trace_id`` and ``span_id`` (hex) of the current span; empty when there is none."""
    if _tracer is None:
        return {}
    from opentelemetry import trace

    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return {}
    return {
        "trace_id": format(context.trace_id, "032x"),
        "span_id": format(context.span_id, "016x"),
    }


def current_trace_id() -> str | None:
    """The current span's trace id (hex), or None (tracing off, or no span)."""
    return current_ids().get("trace_id")


def current_traceparent() -> str:
    """The current span's W3C ``traceparent``, to store and continue later; "" without one."""
    if _tracer is None:
        return ""
    carrier: dict[str, str] = {}
    _propagator().inject(carrier)
    return carrier.get("traceparent", "")


def _propagator() -> Any:
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    return TraceContextTextMapPropagator()


def _context_of(traceparent: str | None) -> Any:
    """The OpenTelemetry context a stored ``traceparent`` names (None: none, or unreadable)."""
    if not traceparent:
        return None
    from opentelemetry import trace

    context = _propagator().extract({"traceparent": traceparent})
    return context if trace.get_current_span(context).get_span_context().is_valid else None


@contextmanager
def queued(task_name: str, *, traceparent: str | None = None) -> Iterator[None]:
    """A ``celery.queue <task>`` span around sending a task (whose headers then carry it).

    With ``traceparent`` (a resume: the turn's stored context) the span continues that trace
    and links to the current span (the decision that queued it, or a sweep); without, it is a
    child of the current span."""
    if _tracer is None:
        yield
        return
    from opentelemetry import trace

    parent = _context_of(traceparent)
    links = []
    if parent is not None:
        here = trace.get_current_span().get_span_context()
        if here.is_valid:
            links.append(trace.Link(here))
    with _tracer.start_as_current_span(
        f"celery.queue {task_name}",
        context=parent,
        links=links,
        kind=trace.SpanKind.PRODUCER,
        attributes={"celery.task": task_name},
    ):
        yield


def inject_into_headers(headers: dict[str, Any]) -> None:
    """Celery's ``before_task_publish``: the current span's context into the task's headers."""
    if _tracer is None:
        return
    _propagator().inject(headers)


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


def task_span_start(*, task_id: str, task_name: str, request: Any = None) -> None:
    """Open the span of a Celery task (task_prerun); ``task_span_end`` closes it. It continues
    the trace whose ``traceparent`` the task's headers carry (``inject_into_headers``)."""
    if _tracer is None:
        return
    from opentelemetry import context, trace

    current = _tracer.start_span(
        f"celery.task {task_name}",
        context=_context_of(_header(request, "traceparent")),
        kind=trace.SpanKind.CONSUMER,
        attributes={"celery.task": task_name},
    )
    token = context.attach(trace.set_span_in_context(current))
    with _lock:
        _task_spans[task_id] = (current, token)


def _header(request: Any, name: str) -> str | None:
    """A custom header of a task's request (as tenant-schemas-celery reads ``_schema_name``)."""
    if request is None:
        return None
    headers = getattr(request, "headers", None)
    if headers and name in headers:
        return str(headers[name])
    value = request.get(name) if hasattr(request, "get") else None
    return str(value) if value else None


def record_model_usage(current: Any, *, usage: dict[str, Any] | None, counted: bool) -> None:
    """Token counts of a model call on its span: as the model reported them, or as the built-in
    model counted them (``countersign.usage.counted``)."""
    if current is None:
        return
    current.set_attribute("countersign.usage.counted", counted)
    if usage:
        current.set_attribute("gen_ai.usage.input_tokens", int(usage.get("input_tokens", 0)))
        current.set_attribute("gen_ai.usage.output_tokens", int(usage.get("output_tokens", 0)))


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
