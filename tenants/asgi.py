"""Tenancy and authentication for WebSocket connections (DESIGN.md §4, §6).

``TenantWebSocketMiddleware`` does for WebSocket what django-tenants does for HTTP: it resolves
the tenant from the Host header, then authenticates the connection inside that tenant's schema
and puts ``tenant`` and ``user`` into the scope. Refusals are sent as an accept followed by a
close with an application code (4401 unauthenticated, 4403 forbidden, 4404 no tenant at this
host) because a close before accept reaches the client as a bare HTTP 403 with no code.

The platform's own host (``PLATFORM_DOMAIN``) has a domain row too, pointing at the public
schema, which has no chat and no API tokens: taken for a tenant, a bearer token was looked up in
a table that does not exist there and the handshake failed with a 500. It is no tenant's host:
4404 like an unknown or inactive one, before any credential is read.

Consumers run every database access through :func:`tenant_database_sync_to_async`, so it happens
under the connection's tenant schema, never under whatever schema the worker thread had last.

Database calls here run on the event loop's thread pool (``thread_sensitive=False``), not on
asgiref's default: outside an HTTP request (Django's handler gives each request a thread of its
own) a thread-sensitive call runs on *one* thread shared by the whole process, so every
WebSocket connection's database work — connecting, authenticating, storing a message and queueing
its turn — waited for every other connection's. Each call here is self-contained (it enters the
tenant, does its queries and commits inside the call), so any pool thread can run it; the pool
is bounded (daphne: ``ASGI_THREADS``).

Every call gives its database connection back to the pool when it ends, whatever happened. Two
reasons not to lean on ``channels.db.database_sync_to_async`` (which closes only connections that
are broken or past ``CONN_MAX_AGE``, through a name channels' own test communicator patches to a
no-op): a pool thread that keeps a connection between calls holds a pooled connection doing
nothing, and a thread that ends holding one (a loop's executor shutting down) takes it out of the
pool for good. In-process WebSocket tests did exactly that, one leaked connection per handshake,
until the pytest process's pool was empty and every later database call timed out.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http.cookies import SimpleCookie
from types import SimpleNamespace
from typing import Any, ParamSpec, TypeVar
from urllib.parse import urlsplit

from asgiref.sync import SyncToAsync
from django.conf import settings
from django.contrib.auth import get_user
from django.db import connections
from django.utils.module_loading import import_string
from django_tenants.utils import get_tenant_domain_model, schema_context, tenant_context

from core.bearer import bearer_token
from tenants.models import Tenant

P = ParamSpec("P")
R = TypeVar("R")


class _PooledDatabaseCall(SyncToAsync):
    """A sync call on a loop thread that returns the thread's connections to the pool after."""

    def thread_handler(self, loop: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().thread_handler(loop, *args, **kwargs)
        finally:
            for connection in connections.all(initialized_only=True):
                connection.close()


def _database_call(func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """Run ``func`` on the loop's bounded thread pool, holding a pooled connection only while it
    runs (see the module docstring)."""
    return _PooledDatabaseCall(func, thread_sensitive=False)


CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NO_TENANT = 4404

Scope = dict[str, Any]
ASGIApp = Callable[
    [Scope, Callable[..., Awaitable[Any]], Callable[..., Awaitable[Any]]], Awaitable[None]
]


def host_without_port(host: str) -> str:
    return host.rsplit(":", 1)[0].lower() if not host.endswith("]") else host.lower()


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return ""


def _tenant_for_host(host: str) -> Tenant | None:
    """The active tenant served at ``host``; None for an unknown host, an inactive tenant, and
    the platform host (the public schema is no tenant)."""
    with schema_context(settings.PUBLIC_SCHEMA_NAME):
        domain = (
            get_tenant_domain_model()
            .objects.select_related("tenant")
            .filter(domain=host_without_port(host))
            .first()
        )
        if domain is None or domain.tenant.schema_name == settings.PUBLIC_SCHEMA_NAME:
            return None
        return domain.tenant if domain.tenant.is_active else None


def _user_for_session(tenant: Tenant, session_key: str) -> Any:
    """The user of a session cookie, looked up in ``tenant``'s own session and user tables."""
    engine = import_string(settings.SESSION_ENGINE)
    with tenant_context(tenant):
        request = SimpleNamespace(session=engine.SessionStore(session_key))
        user = get_user(request)  # type: ignore[arg-type]
        return user if user.is_authenticated and user.is_active else None


def _user_for_bearer(tenant: Tenant, authorization: str) -> Any:
    """The user of a bearer token, through the authenticator named by settings (the token
    model belongs to a product app, which ``tenants`` must not import)."""
    authenticate = import_string(settings.BEARER_TOKEN_AUTHENTICATOR)
    token = bearer_token(authorization)
    if token is None:
        return None
    with tenant_context(tenant):
        return authenticate(token)


def origin_matches_host(scope: Scope) -> bool:
    """True when the Origin header names exactly the scheme, host and port the client
    connected to: an ``http://`` page may not open a cookie-authenticated ``wss://`` socket (a
    page on a plain-HTTP twin of the host is not the same origin, and may be an attacker's)."""
    origin, host = _header(scope, b"origin"), _header(scope, b"host")
    if not (origin and host):
        return False
    parts = urlsplit(origin)
    return parts.scheme.lower() == _page_scheme(scope) and parts.netloc.lower() == host.lower()


def _page_scheme(scope: Scope) -> str:
    """The scheme of a page that may open this socket: https for wss, http for ws, honouring
    ``X-Forwarded-Proto`` only where the deployment trusts it (``SECURE_PROXY_SSL_HEADER``,
    set by ``TRUST_X_FORWARDED_PROTO``), as Django does for HTTP."""
    trusted = settings.SECURE_PROXY_SSL_HEADER
    if trusted is not None:
        forwarded = _header(scope, b"x-forwarded-proto").split(",")[0].strip().lower()
        if forwarded:
            return "https" if forwarded == trusted[1] else "http"
    return "https" if scope.get("scheme") == "wss" else "http"


class TenantWebSocketMiddleware:
    """Resolve tenant from Host, authenticate in that schema, refuse with 4401/4403/4404."""

    def __init__(self, inner: ASGIApp) -> None:
        self.inner = inner

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        tenant, user, code = await _tenant_and_user(_header(scope, b"host"), _credentials(scope))
        if user is None:
            return await _refuse(receive, send, code)
        scope = {**scope, "tenant": tenant, "user": user}
        return await self.inner(scope, receive, send)


@dataclass(frozen=True, slots=True)
class _Credentials:
    authorization: str = ""  # a bearer token's header (programs)
    session_key: str | None = None  # a session cookie's value (browser pages)
    refusal: int = CLOSE_UNAUTHENTICATED  # the close code when neither can be used


def _credentials(scope: Scope) -> _Credentials:
    """What the connection authenticates with, read from its headers (no database)."""
    authorization = _header(scope, b"authorization")
    if authorization:
        # Programs: a bearer token. No Origin check: a browser page cannot set this header on
        # a WebSocket.
        return _Credentials(authorization=authorization)
    morsel = SimpleCookie(_header(scope, b"cookie")).get(settings.SESSION_COOKIE_NAME)
    if morsel is None:
        return _Credentials()
    # A cookie rides along with any cross-site page's WebSocket: insist on a same-origin page.
    if not origin_matches_host(scope):
        return _Credentials(refusal=CLOSE_FORBIDDEN)
    return _Credentials(session_key=morsel.value)


@_database_call
def _tenant_and_user(host: str, credentials: _Credentials) -> tuple[Tenant | None, Any, int]:
    """The tenant of ``host`` and the user its credentials name in that tenant's own tables,
    in one trip to a database thread instead of two, or a close code: 4404 for a host that
    serves no tenant (unknown, inactive, the platform's), else the credentials' refusal."""
    tenant = _tenant_for_host(host)
    if tenant is None:
        return None, None, CLOSE_NO_TENANT
    if credentials.authorization:
        user = _user_for_bearer(tenant, credentials.authorization)
    elif credentials.session_key is not None:
        user = _user_for_session(tenant, credentials.session_key)
    else:
        return tenant, None, credentials.refusal
    return tenant, user, 0 if user is not None else CLOSE_UNAUTHENTICATED


async def _refuse(receive: Any, send: Any, code: int) -> None:
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": code})


def tenant_database_sync_to_async(
    tenant: Tenant,
) -> Callable[[Callable[P, R]], Callable[P, Awaitable[R]]]:
    """Decorate a sync function so it runs in a DB thread under ``tenant``'s schema."""

    def decorate(func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
        @functools.wraps(func)
        def in_tenant(*args: P.args, **kwargs: P.kwargs) -> R:
            with tenant_context(tenant):
                return func(*args, **kwargs)

        return _database_call(in_tenant)

    return decorate
