"""The one edge of every JSON API view of a tenant host (``/api/…``), sync and async.

A view decorated with ``api_view`` (plain views) or ``api_view_async`` (the SSE stream) gets:

* its methods checked: anything else is 405 ``method_not_allowed`` with an ``Allow`` header;
* its caller authenticated by ``Authorization: Bearer <api token>`` (programs; no CSRF: a
  browser never sends this header by itself) or by the session cookie (browsers; CSRF enforced
  on unsafe methods, 403 ``csrf``); a request with neither, or with an ``Authorization`` header
  that is not a valid bearer token of this tenant, is 401 ``unauthenticated``. The user is in
  ``api_caller(request)``;
* the log context (tenant, user) around the view, and one log line per translated error;
* 503 ``unavailable`` with ``Retry-After`` while PostgreSQL or Redis is away (never a 500);
* one error shape, ``{"error": {"code": "...", "message": "..."}}``, for ``ApiError``, a body over
  ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (413 ``too_large``, where Django alone answers an HTML 400),
  and every domain exception of the view's table (``{Exception: (status, code)}``, e.g.
  ``chat.errors.ERRORS``; the WebSocket consumer reads the same table through ``translate``).

The bearer token is resolved by the function named in ``settings.BEARER_TOKEN_AUTHENTICATOR``
(the token model belongs to a product app, which the ground floor must not import).

Hand-rolled rather than django-ninja or DRF: the API is ten endpoints with one auth rule and
one error shape, and one of them is an async Server-Sent Events stream that neither library's
views carry as they are; docs/api.md says how the OpenAPI document is kept true instead.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Collection, Coroutine, Mapping
from typing import Any, TypeVar

import kombu.exceptions
import redis
from asgiref.sync import sync_to_async
from django import db
from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.utils.module_loading import import_string
from django.views.decorators.csrf import csrf_exempt
from django_tenants.utils import tenant_context

from core.bearer import bearer_token
from core.jsoninput import InvalidText, MalformedJson, loads_checked
from core.logs import log_context

logger = logging.getLogger(__name__)

ErrorTable = Mapping[type[Exception], tuple[int, str]]
"""Domain exception → (HTTP status, error code); the first matching entry wins, so list
subclasses before their bases."""

SyncView = Callable[..., HttpResponseBase]
AsyncView = Callable[..., Coroutine[Any, Any, HttpResponseBase]]
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
T = TypeVar("T")


class ApiError(Exception):
    """An error with its HTTP status, raised by views and translated by the edge."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code = status, code


def error_response(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


def translate(error: BaseException, table: ErrorTable) -> tuple[int, str] | None:
    """The (status, code) of ``error`` in ``table``, or None when the table does not know it."""
    return next((found for kind, found in table.items() if isinstance(error, kind)), None)


def api_user(request: HttpRequest) -> User | None:
    """The user of a bearer token (current tenant) or of the session; None when anonymous.
    An ``Authorization`` header that is not a usable bearer token never falls back to the
    session: a program that sent a wrong token is told so, not served as someone else."""
    authorization = request.headers.get("Authorization", "")
    if authorization:
        token = bearer_token(authorization)
        if token is None:
            return None
        user: User | None = import_string(settings.BEARER_TOKEN_AUTHENTICATOR)(token)
        return user
    session_user = request.user
    return session_user if isinstance(session_user, User) and session_user.is_active else None


def api_caller(request: HttpRequest) -> User:
    """The user the edge authenticated for this request."""
    user: User = request.api_user  # type: ignore[attr-defined]
    return user


def json_body(request: HttpRequest) -> dict[str, Any]:
    """The request body as a JSON object ({} when empty); ``ApiError`` 400 otherwise."""
    if not request.body:
        return {}
    try:
        body = loads_checked(request.body)
    except MalformedJson as error:
        raise ApiError(400, "bad_request", f"the body is not usable: {error}") from None
    except InvalidText as error:
        raise ApiError(400, "invalid_text", str(error)) from None
    if not isinstance(body, dict):
        raise ApiError(400, "bad_request", "the body must be a JSON object")
    return body


async def in_tenant(request: HttpRequest, work: Callable[[], T]) -> T:
    """Run ``work`` (database calls) from an async view: in a thread, in the request's tenant
    schema (the async view itself never touches the database)."""
    tenant = request.tenant  # type: ignore[attr-defined]  # set by django-tenants

    def run() -> T:
        with tenant_context(tenant):
            return work()

    return await sync_to_async(run)()


def _method_refusal(request: HttpRequest, methods: Collection[str]) -> JsonResponse | None:
    if request.method in methods:
        return None
    response = error_response(405, "method_not_allowed", f"use {' or '.join(methods)}")
    response["Allow"] = ", ".join(methods)
    return response


def _admit(request: HttpRequest) -> JsonResponse | None:
    """Authenticate (and CSRF-check a session's unsafe request); None when admitted, with the
    user kept for ``api_caller``. Sync: it reads the session and the token tables."""
    user = api_user(request)
    if user is None:
        return error_response(401, "unauthenticated", "authentication required")
    session = "Authorization" not in request.headers
    if session and request.method not in SAFE_METHODS and _csrf_failure(request) is not None:
        return error_response(403, "csrf", "CSRF check failed")
    request.api_user = user  # type: ignore[attr-defined]  # read back by api_caller()
    return None


def _csrf_failure(request: HttpRequest) -> HttpResponse | None:
    checker = CsrfViewMiddleware(lambda r: HttpResponse())
    checker.process_request(request)
    return checker.process_view(request, lambda r: HttpResponse(), (), {})


# A server the request needs is away (restarting, or briefly unreachable): answered 503 with
# a hint to retry, never a 500. Seen in the chaos run: decisions during Redis restarts were 500.
_OUTAGES = (
    redis.RedisError,
    kombu.exceptions.OperationalError,  # the Celery broker (Redis) while queueing a task
    db.OperationalError,
    db.InterfaceError,
)
OUTAGE_RETRY_AFTER_SECONDS = 5


def _error_for(error: Exception, table: ErrorTable) -> JsonResponse | None:
    """The JSON answer to an exception the edge knows, or None to let it propagate (a 500)."""
    message = str(error)
    if isinstance(error, _OUTAGES):
        logger.warning("API unavailable: %s: %s", error.__class__.__name__, error)
        response = error_response(
            503,
            "unavailable",
            "a server this request needs is unavailable (restarting?); try again in a few seconds",
        )
        response["Retry-After"] = str(OUTAGE_RETRY_AFTER_SECONDS)
        return response
    if isinstance(error, ApiError):
        status, code = error.status, error.code
    elif isinstance(error, RequestDataTooBig):
        status, code = 413, "too_large"
        message = f"the body is over {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes"
    else:
        found = translate(error, table)
        if found is None:
            return None
        status, code = found
    logger.info("API error %s %s: %s", status, code, message)
    return error_response(status, code, message)


def api_view(
    errors: ErrorTable | None = None, *, methods: Collection[str]
) -> Callable[[SyncView], SyncView]:
    """The edge for a sync view answering ``methods``; see the module docstring."""
    table = errors or {}

    def decorate(view: SyncView) -> SyncView:
        @csrf_exempt  # checked in _admit, for session requests only
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            refusal = _method_refusal(request, methods) or _admit(request)
            if refusal is not None:
                return refusal
            with log_context(tenant=_schema(request), user=api_caller(request).pk):
                try:
                    return view(request, *args, **kwargs)
                except Exception as error:
                    response = _error_for(error, table)
                    if response is None:
                        raise
                    return response

        return wrapped

    return decorate


def api_view_async(
    errors: ErrorTable | None = None, *, methods: Collection[str]
) -> Callable[
    [AsyncView],
    AsyncView,
]:
    """The edge for an async view (a stream): the same checks and errors as ``api_view``; the
    authentication runs in a thread in the tenant's schema, and so must the view's own database
    calls (``in_tenant``)."""
    table = errors or {}

    def decorate(
        view: AsyncView,
    ) -> AsyncView:
        @csrf_exempt  # checked in _admit, for session requests only
        @functools.wraps(view)
        async def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            refusal = _method_refusal(request, methods) or await in_tenant(
                request, lambda: _admit(request)
            )
            if refusal is not None:
                return refusal
            with log_context(tenant=_schema(request), user=api_caller(request).pk):
                try:
                    return await view(request, *args, **kwargs)
                except Exception as error:
                    response = _error_for(error, table)
                    if response is None:
                        raise
                    return response

        return wrapped

    return decorate


def _schema(request: HttpRequest) -> str | None:
    tenant = getattr(request, "tenant", None)
    return getattr(tenant, "schema_name", None)
