"""Liveness, readiness and metrics, answered before tenant resolution.

Load balancers and Prometheus probe by IP or by an internal host name that is no tenant's
domain, so these paths are served by a middleware placed ahead of django-tenants' host lookup.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import psycopg
from django.conf import settings
from django.db import DatabaseError, OperationalError, connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, HttpResponse, JsonResponse

from core.leases import live_workers
from core.metrics import metrics_view
from core.schema import use_public_schema

logger = logging.getLogger(__name__)


def readiness_problems() -> list[str]:
    """Why the process cannot serve traffic now; an empty list means ready."""
    problems: list[str] = []
    try:
        _database_answers()
        # The previous request on this thread may have left a tenant schema selected.
        use_public_schema()
        connection.ensure_connection()
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
        if pending:
            problems.append(f"database: {len(pending)} unapplied migration(s) in the public schema")
    except DatabaseError as error:
        problems.append(f"database: {error.__class__.__name__}: {str(error).strip()[:200]}")
    try:
        import redis

        from core.redis_clients import probe_redis

        probe_redis().ping()
        if settings.READYZ_REQUIRE_WORKER and live_workers() == 0:
            problems.append("workers: no live worker heartbeat (turns and actions would wait)")
    except redis.RedisError as error:
        problems.append(f"redis: {error.__class__.__name__}: {str(error).strip()[:200]}")
    return problems


def _database_answers() -> None:
    """A pooled connection within ``READYZ_DATABASE_TIMEOUT_SECONDS``, or DatabaseError.

    Asked of the pool directly with a short wait: through Django the probe waited the pool's
    full timeout while PostgreSQL was down, and the balancer's probe hung instead of hearing
    503. The pool tries the connection it hands out (CONN_HEALTH_CHECKS), so a dead one left
    by a restart is replaced here, not reported."""
    pool = getattr(connection, "pool", None)
    if pool is None:  # no pool configured: Django's own connection attempt is the probe
        return
    try:
        pool.open()  # as Django does before its first connection (a no-op once open)
        with pool.connection(timeout=settings.READYZ_DATABASE_TIMEOUT_SECONDS) as probe:
            probe.execute("SELECT 1")
    except psycopg.Error as error:
        raise OperationalError(f"{error.__class__.__name__}: {error}") from error


def healthz() -> JsonResponse:
    return JsonResponse({"status": "ok"})


def readyz() -> JsonResponse:
    problems = readiness_problems()
    if problems:
        # A 503 here is the probe doing its job, not a server error: logged once at WARNING
        # with its reasons, and marked so that Django's request log does not log it at ERROR.
        logger.warning("/readyz answers 503: %s", "; ".join(problems))
        response = JsonResponse({"status": "unavailable", "problems": problems}, status=503)
        response._has_been_logged = True  # type: ignore[attr-defined]
        return response
    return JsonResponse({"status": "ready"})


class HealthCheckMiddleware:
    """Serves /healthz, /readyz and /metrics for any Host, without tenants or sessions."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method in ("GET", "HEAD"):
            if request.path == "/healthz":
                return healthz()
            if request.path == "/readyz":
                return readyz()
            if request.path == "/metrics":
                return metrics_view(request)
        return self.get_response(request)
