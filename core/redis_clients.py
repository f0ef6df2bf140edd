"""The process's Redis clients: the one place that opens them.

A client owns a connection pool, so building one per call (per lock, per event, per digest)
opened a connection per call and let them pile up. Here each process has one synchronous
client (thread-safe: its pool hands each thread its own connection) and one asynchronous
client per event loop (an asyncio connection belongs to the loop that opened it: daphne has
one loop, tests have one per test). Both are keyed by ``settings.REDIS_URL``, which tests
change.

``health_check_interval`` makes a connection idle for longer than that ping before it is
used, so the first call after a Redis restart reconnects instead of failing on a dead socket.
Readiness probes and metric scrapes use ``probe_redis``: the same URL with short timeouts, so
a hung Redis makes them answer "not ready" quickly instead of hanging the probe.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from typing import Any

import redis
import redis.asyncio as aioredis
from django.conf import settings
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialWithJitterBackoff
from redis.retry import Retry

_HEALTH_CHECK_SECONDS = 30
_TIMEOUT_SECONDS = 10
# Above the longest blocking read (an SSE follower's XREAD BLOCK waits 15 s), so only a Redis
# that stopped answering times out.
_ASYNC_TIMEOUT_SECONDS = 60

_lock = threading.Lock()
_async: dict[asyncio.AbstractEventLoop, dict[str, aioredis.Redis]] = {}


def _retry() -> Retry:
    """A failed command is retried on a fresh connection, three times within about a second.
    Given explicitly because ``from_url`` leaves the pool's connections without one: the client
    then retried a command on the same dead connection after a Redis restart (redis-py 8.1) and
    failed, where a reconnect would have answered."""
    return Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.5), retries=3)


def _async_retry() -> AsyncRetry:
    """``_retry`` for the asyncio client (whose retry awaits)."""
    return AsyncRetry(ExponentialWithJitterBackoff(base=0.05, cap=0.5), retries=3)


def sync_redis() -> redis.Redis:
    """The process's synchronous client (strings in, strings out)."""
    return _sync_client(settings.REDIS_URL)


@functools.cache
def _sync_client(url: str) -> redis.Redis:
    return redis.Redis.from_url(
        url,
        decode_responses=True,
        socket_timeout=_TIMEOUT_SECONDS,
        socket_connect_timeout=_TIMEOUT_SECONDS,
        health_check_interval=_HEALTH_CHECK_SECONDS,
        retry=_retry(),
    )


def probe_redis() -> redis.Redis:
    """A client for health checks and metric scrapes: one second to connect or answer."""
    return _probe_client(settings.REDIS_URL)


@functools.cache
def _probe_client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)


def redis_script(source: str) -> Any:
    """A Lua script on the process's client, registered once: it runs as EVALSHA, and redis-py
    sends the source again only when the server does not know it (e.g. after a restart)."""
    return _script(settings.REDIS_URL, source)


@functools.cache
def _script(url: str, source: str) -> Any:
    return _sync_client(url).register_script(source)


def async_redis() -> aioredis.Redis:
    """The running event loop's asynchronous client. Blocking reads (``XREAD BLOCK``) take a
    connection of the pool for their whole wait, so followers of a stream hold one each."""
    loop = asyncio.get_running_loop()
    url = settings.REDIS_URL
    with _lock:
        for closed in [other for other in _async if other.is_closed()]:
            del _async[closed]  # its connections died with it
        clients = _async.setdefault(loop, {})
        client = clients.get(url)
        if client is None:
            client = clients[url] = aioredis.Redis.from_url(
                url,
                decode_responses=True,
                socket_timeout=_ASYNC_TIMEOUT_SECONDS,
                socket_connect_timeout=_TIMEOUT_SECONDS,
                health_check_interval=_HEALTH_CHECK_SECONDS,
                retry=_async_retry(),
            )
    return client
