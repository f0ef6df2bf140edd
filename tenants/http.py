"""Authentication and error shape shared by every JSON API view of a tenant host.

A request is authenticated by ``Authorization: Bearer <api token>`` (programs; no CSRF: a browser
never sends this header by itself) or by the session cookie (browsers; CSRF enforced on unsafe
methods). Failures are JSON: ``{"error": {"code": "...", "message": "..."}}``, including a
body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (413 ``too_large``, where Django alone answers an
HTML 400) and text no layer can store (400 ``invalid_text``, see ``tenants.jsoninput``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.utils.module_loading import import_string
from django.views.decorators.csrf import csrf_exempt

from core.logs import log_context
from core.schema import current_schema
from tenants.jsoninput import InvalidText, MalformedJson, loads_checked


class ApiError(Exception):
    """An error with its HTTP status, raised by views and translated once by ``api_view``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code = status, code


def error_response(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


def api_user(request: HttpRequest) -> User | None:
    """The user of a bearer token (current tenant) or of the session; None when anonymous."""
    authorization = request.headers.get("Authorization", "")
    if authorization:
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        user: User | None = import_string(settings.BEARER_TOKEN_AUTHENTICATOR)(token.strip())
        return user
    session_user = request.user
    return session_user if isinstance(session_user, User) and session_user.is_active else None


def api_caller(request: HttpRequest) -> User:
    """The user ``api_view`` authenticated for this request."""
    user: User = request.api_user  # type: ignore[attr-defined]
    return user


def _csrf_failure(request: HttpRequest) -> HttpResponse | None:
    checker = CsrfViewMiddleware(lambda r: HttpResponse())
    checker.process_request(request)
    return checker.process_view(request, lambda r: HttpResponse(), (), {})


def json_body(request: HttpRequest) -> dict[str, Any]:
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


def api_view(
    errors: dict[type[Exception], tuple[int, str]] | None = None,
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Authenticate, then call the view with ``request.api_user`` set; translate ``ApiError``
    and the given domain exceptions (``{Exception: (status, code)}``) into JSON errors."""
    translations = errors or {}

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @csrf_exempt
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            user = api_user(request)
            if user is None:
                return error_response(401, "unauthenticated", "authentication required")
            if "Authorization" not in request.headers and request.method not in (
                "GET",
                "HEAD",
                "OPTIONS",
            ):
                failure = _csrf_failure(request)
                if failure is not None:
                    return error_response(403, "csrf", "CSRF check failed")
            request.api_user = user  # type: ignore[attr-defined]  # read back by api_caller()
            try:
                with log_context(tenant=current_schema(), user=user.pk):
                    return view(request, *args, **kwargs)
            except ApiError as error:
                return error_response(error.status, error.code, str(error))
            except RequestDataTooBig:
                limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
                return error_response(413, "too_large", f"the body is over {limit} bytes")
            except tuple(translations) as error:
                # First match in declaration order, so list subclasses before their bases.
                status, code = next(v for k, v in translations.items() if isinstance(error, k))
                return error_response(status, code, str(error))

        return wrapped

    return decorate
