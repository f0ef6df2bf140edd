"""Structured logs: the ids of what a line is about, and a JSON formatter (``LOG_FORMAT=json``).

With tracing on (core/tracing.py), a JSON line logged inside a span also has ``trace_id`` and
``span_id``, to find the line's turn in the tracing backend and the other way round.

Entry points (the WebSocket consumer, the HTTP API, Celery tasks, the turn services) enter
``log_context(tenant=…, user=…, conversation=…, run=…)``; every record logged inside it, in that
thread or task, carries those ids. Only ids: message bodies are never put in a log record at
INFO (a test keeps it so).
"""

from __future__ import annotations

import contextvars
import datetime
import json
import logging
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType
from typing import Any

_FIELDS = ("tenant", "user", "conversation", "run")
_context: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "countersign_log_context", default=MappingProxyType({})
)
# Set by core/tracing.py while tracing is on: the current span's ``trace_id`` and ``span_id``.
# A hook rather than an import, so that with tracing off a log line costs nothing more.
trace_ids: Callable[[], Mapping[str, str]] | None = None
# Attributes every LogRecord has; anything else on a record came from ``extra=``.
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName"}


@contextmanager
def log_context(**ids: object) -> Iterator[None]:
    """Add ids (``tenant``, ``user``, ``conversation``, ``run``) to every record logged inside;
    None values are left out and outer ids are kept."""
    unknown = set(ids) - set(_FIELDS)
    if unknown:
        raise ValueError(f"unknown log context field(s): {', '.join(sorted(unknown))}")
    added = {name: str(value) for name, value in ids.items() if value is not None}
    token = _context.set(MappingProxyType({**_context.get(), **added}))
    try:
        yield
    finally:
        _context.reset(token)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the context ids and extras."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            **_context.get(),
        }
        if trace_ids is not None:
            entry.update(trace_ids())
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key not in entry and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class ClientErrorsWithoutTraceback(logging.Filter):
    """Drop the traceback Django attaches to a 4xx response's log record.

    ``django.utils.log.log_response`` passes the exception behind every refusal (a
    ``PermissionDenied`` behind a 403, an ``Http404``) as ``exc_info``: a whole traceback at
    WARNING for an answer that worked as designed, which reads like a crash and buries real
    ones. A 5xx keeps its traceback.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and status < 500:
            record.exc_info = None
            record.exc_text = None
        return True
