"""413 for a request body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``, on every door.

Django raises ``RequestDataTooBig`` where the body is first read: in ``CsrfViewMiddleware`` for a
form POST, in the view for a JSON body. Left to Django, that is a 400 ("Bad Request", or with
``DEBUG`` the technical page, whose report reads ``request.user`` and, under ASGI, did so on a
thread whose connection was in the public schema: the session was not found there and the
response deleted the session cookie, signing the person out for having pasted too much).

This middleware answers 413 instead, before the CSRF check reads the form and for a view that
reads the body, on the request's thread, without touching the session: JSON
``{"error": {"code": "too_large", ...}}`` under ``/api/`` (the shape of ``core.jsonapi``), else
the urlconf's ``handler413`` (the tenant hosts' page in the app's layout) or plain text. Place
it just before ``CsrfViewMiddleware``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.urls import get_callable, get_resolver
from django.utils.deprecation import MiddlewareMixin

from core.jsonapi import error_response

logger = logging.getLogger(__name__)


def too_large_message() -> str:
    limit_mb = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / (1024 * 1024)
    return f"the body is over {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes ({limit_mb:.1f} MB)"


def too_large_response(request: HttpRequest) -> HttpResponse:
    logger.info("413 too_large %s %s", request.method, request.path)
    if request.path.startswith("/api/"):
        return error_response(413, "too_large", too_large_message())
    resolver = get_resolver(getattr(request, "urlconf", None))
    handler = getattr(resolver.urlconf_module, "handler413", None)
    if handler is not None:
        response: HttpResponse = get_callable(handler)(request)
        return response
    return HttpResponse(
        f"Request too large: {too_large_message()}.", status=413, content_type="text/plain"
    )


class RequestTooLargeMiddleware(MiddlewareMixin):
    def process_view(
        self,
        request: HttpRequest,
        view: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> HttpResponse | None:
        # Parse the form now, as CsrfViewMiddleware is about to (an exempt view reads its own
        # body, and process_exception catches it there).
        if request.method != "POST" or getattr(view, "csrf_exempt", False):
            return None
        try:
            request.POST  # noqa: B018 - parsing is the point
        except RequestDataTooBig:
            return too_large_response(request)
        return None

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, RequestDataTooBig):
            return too_large_response(request)
        return None
