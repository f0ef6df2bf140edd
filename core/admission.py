"""Admission control for HTTP: a bounded number of requests run Django at once, per process.

Django's ASGI handler gives every HTTP request a thread of its own for its sync code, and each
such thread takes a database connection. Unbounded, a burst of requests (320 logins) opened a
thread and a connection each and PostgreSQL refused everyone with "too many clients". Here at
most ``WEB_MAX_CONCURRENT_REQUESTS`` requests run at once; the others wait on the event loop
(no thread, no connection) for their turn.

A waiting request is refused at once (``503 {"error": {"code": "overloaded"}}`` with
``Retry-After``) only when it could not be served within ``WEB_QUEUE_TIMEOUT_SECONDS``: its
expected wait is the requests ahead of it times the observed service time (a moving average of
recent requests' durations) divided by the concurrency. Shedding by count alone (200 waiting)
refused half of a burst of 400 logins that each take milliseconds and would all have been
answered within a second or two. One that waits past the timeout anyway is refused then;
``WEB_MAX_QUEUED_REQUESTS`` stays as a hard cap on waiting requests (each holds a socket and a
little memory). So a web process never holds more than its budget of database connections
(docs/operations.md), whatever arrives.

A server-sent event stream gives its slot back when its response starts: it has done its
database work by then (the view returns its connection to the pool) and then only reads Redis,
for as long as the client listens. /healthz and /metrics never touch the database and are never
queued, so probes keep answering under load.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from core.metrics import HTTP_SHED

logger = logging.getLogger(__name__)

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[..., Awaitable[None]]

_UNQUEUED_PATHS = frozenset({"/healthz", "/metrics"})
_OVERLOADED = json.dumps(
    {"error": {"code": "overloaded", "message": "the server is busy; retry in a moment"}}
).encode()


# Before any request has finished, a request is assumed to take this long (a page or an API
# call; the average replaces it within a few requests).
_FIRST_SERVICE_SECONDS = 0.05
# Weight of the newest request in the moving average: recent enough to follow a change of load,
# smooth enough that one slow request does not shed the queue behind it.
_SMOOTHING = 0.1


class ServiceTime:
    """Exponentially weighted moving average of how long an admitted request holds its slot."""

    def __init__(self, first: float = _FIRST_SERVICE_SECONDS) -> None:
        self.seconds = first

    def observe(self, seconds: float) -> None:
        self.seconds += _SMOOTHING * (seconds - self.seconds)


class HttpAdmission:
    """ASGI middleware: at most ``slots`` HTTP requests inside ``inner`` at once; the rest wait
    while their expected wait is within ``wait_seconds`` (and at most ``queue`` of them)."""

    def __init__(self, inner: ASGIApp, *, slots: int, queue: int, wait_seconds: float) -> None:
        self.inner = inner
        self.slots = asyncio.Semaphore(slots)
        self.concurrency = slots
        self.queue = queue
        self.wait_seconds = wait_seconds
        self.waiting = 0
        self.service = ServiceTime()
        self._warned_at = 0.0

    def expected_wait(self) -> float:
        """Seconds until a request arriving now gets a slot: everyone waiting goes first, and
        the slots serve ``concurrency`` requests per service time."""
        return (self.waiting + 1) * self.service.seconds / self.concurrency

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in _UNQUEUED_PATHS:
            return await self.inner(scope, receive, send)
        if self.slots.locked():
            if self.waiting >= self.queue:
                return await self._shed(send, "queue_full")
            if self.expected_wait() > self.wait_seconds:
                return await self._shed(send, "expected_wait")
        self.waiting += 1
        try:
            await asyncio.wait_for(self.slots.acquire(), timeout=self.wait_seconds)
        except TimeoutError:
            return await self._shed(send, "waited")
        finally:
            self.waiting -= 1
        released = False
        started = time.monotonic()

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self.service.observe(time.monotonic() - started)
                self.slots.release()

        async def send_releasing(message: Message) -> None:
            if message["type"] == "http.response.start" and _is_event_stream(message):
                release()
            await send(message)

        try:
            await self.inner(scope, receive, send_releasing)
        finally:
            release()

    async def _shed(self, send: Send, reason: str) -> None:
        HTTP_SHED.labels(reason=reason).inc()
        if time.monotonic() - self._warned_at > 1:  # one line a second, not one per request
            self._warned_at = time.monotonic()
            logger.warning("HTTP admission limit full: answering 503 (%s)", reason)
        await send(
            {
                "type": "http.response.start",
                "status": 503,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"retry-after", b"1"),
                    (b"content-length", str(len(_OVERLOADED)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": _OVERLOADED})


def _is_event_stream(message: Message) -> bool:
    return any(
        name.lower() == b"content-type" and value.startswith(b"text/event-stream")
        for name, value in message.get("headers", [])
    )
