"""django-tenants' host-to-tenant middleware, with host names compared as DNS compares them."""

from __future__ import annotations

from django.http import HttpRequest
from django_tenants.middleware.main import TenantMainMiddleware


class TenantMiddleware(TenantMainMiddleware):
    """``DEMO.LOCALHOST`` is ``demo.localhost``: domains are stored lower-case, and a browser or
    a script that upper-cases the host must reach the same tenant (the WebSocket door,
    ``tenants.asgi``, lower-cases the host the same way)."""

    @staticmethod
    def hostname_from_request(request: HttpRequest) -> str:
        return str(TenantMainMiddleware.hostname_from_request(request)).lower()
