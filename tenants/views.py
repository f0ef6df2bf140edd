"""The platform host's own pages (public schema)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET


@require_GET
def platform_home(request: HttpRequest) -> HttpResponse:
    """Where an operator lands on the platform host: the admin, the probes and the docs,
    instead of a bare 404 (nothing here reveals a tenant)."""
    return render(request, "platform/home.html", {"docs_url": settings.DOCS_URL})
