"""Reads about tenants that the product apps need without knowing django-tenants' internals."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.db import connection

from tenants.models import Tenant, UnapprovableRequests, default_time_zone


def tenant_zone(*, schema_name: str | None = None) -> ZoneInfo:
    """The time zone of the tenant ``schema_name`` (default: the connection's current schema).

    Dates staff type ("tomorrow at 9am") are read in it and times are shown back in it; the
    public schema and unknown schemas use the deployment's ``TIME_ZONE``.
    """
    schema = schema_name or getattr(connection, "schema_name", None)
    tenant = Tenant.objects.filter(schema_name=schema).only("time_zone").first()
    return tenant.zone if tenant else ZoneInfo(default_time_zone())


def tenant_unapprovable_requests(*, schema_name: str | None = None) -> str:
    """What the tenant ``schema_name`` (default: the connection's current schema) does with a
    request nobody but its requester may approve (``Tenant.unapprovable_requests``). Read from
    its row each time: a worker may hold a tenant object loaded before the platform admin
    changed it, and a graph node runs under a schema, not a tenant object."""
    schema = schema_name or getattr(connection, "schema_name", None)
    value = (
        Tenant.objects.filter(schema_name=schema)
        .values_list("unapprovable_requests", flat=True)
        .first()
    )
    return str(value or UnapprovableRequests.NOTIFY_ADMINS)
