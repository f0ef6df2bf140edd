"""Reads about tenants that the product apps need without knowing django-tenants' internals."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.db import connection

from tenants.models import Tenant, default_time_zone


def tenant_zone(*, schema_name: str | None = None) -> ZoneInfo:
    """The time zone of the tenant ``schema_name`` (default: the connection's current schema).

    Dates staff type ("tomorrow at 9am") are read in it and times are shown back in it; the
    public schema and unknown schemas use the deployment's ``TIME_ZONE``.
    """
    schema = schema_name or getattr(connection, "schema_name", None)
    tenant = Tenant.objects.filter(schema_name=schema).only("time_zone").first()
    return tenant.zone if tenant else ZoneInfo(default_time_zone())
