"""Reads about tenants that the product apps need without knowing django-tenants' internals."""

from __future__ import annotations

import functools
from importlib import resources
from zoneinfo import ZoneInfo

from django.conf import settings
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


def tenant_phone_region(*, schema_name: str | None = None) -> str | None:
    """The country (ISO 3166, "KR") a phone number typed without "+" is read in, for the tenant
    ``schema_name`` (default: the connection's current schema): the deployment's
    ``ACTIONS_PHONE_REGION`` when set, else the country of the tenant's time zone, so an academy
    in Asia/Seoul can text "010-2345-6789". A zone of no one country (UTC) gives None: a "+" and
    country code are then required."""
    return settings.ACTIONS_PHONE_REGION or zone_country(str(tenant_zone(schema_name=schema_name)))


def zone_country(zone: str) -> str | None:
    """The country whose time zone ``zone`` is, by the IANA database's zone.tab."""
    return _zone_countries().get(zone)


@functools.cache
def _zone_countries() -> dict[str, str]:
    table = resources.files("tzdata").joinpath("zoneinfo", "zone.tab").read_text("utf-8")
    rows = (line.split("\t") for line in table.splitlines() if line and not line.startswith("#"))
    return {row[2]: row[0] for row in rows if len(row) >= 3}


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
