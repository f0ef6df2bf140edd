"""Where links in notifications point: the tenant's own address.

In production a digest's links are built from the tenant's primary domain and the configured
``APPROVAL_NOTIFY_LINK_SCHEME`` / ``APPROVAL_NOTIFY_LINK_PORT``. Under ``make run`` (``DEBUG``)
the server is reached at an address no setting knows in advance (``http://localhost:8000``,
``http://acme.localhost:8000``, another ``WEB_PORT``), so the links use the scheme, host and
port a page of the tenant was last opened with: a link in the demo opens where the demo runs.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django_tenants.utils import get_public_schema_name

from core.schema import current_schema

# django-tenants' make_key prefixes it with the schema: one origin per tenant.
_KEY = "notifications:link-origin"
# A week: a demo left alone over a weekend still links where it ran.
_TTL_SECONDS = 7 * 24 * 3600


def link_origin() -> str | None:
    """``scheme://host[:port]`` a page of the current tenant was last opened with, in
    development only; None in production (``DEBUG`` off) or before any page was opened."""
    if not settings.DEBUG:
        return None
    origin = cache.get(_KEY)
    return origin if isinstance(origin, str) else None


class LinkOriginMiddleware:
    """Remembers the address a tenant's pages are opened with; steps aside unless ``DEBUG``.

    The host is one django-tenants resolved to this tenant (and ``ALLOWED_HOSTS`` let in), so
    a remembered origin always points at the same tenant."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            settings.DEBUG
            and request.method == "GET"
            and response.status_code == 200
            and current_schema() != get_public_schema_name()
        ):
            origin = f"{request.scheme}://{request.get_host()}"
            if cache.get(_KEY) != origin:
                cache.set(_KEY, origin, _TTL_SECONDS)
        return response
