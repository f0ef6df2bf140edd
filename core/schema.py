"""Typed access to the schema of the current thread's database connection (django-tenants)."""

from typing import TYPE_CHECKING, cast

from django.db import connection
from django_tenants.postgresql_backend.base import DatabaseWrapper

if TYPE_CHECKING:
    from tenants.models import Tenant

PUBLIC = "public"


def _tenant_connection() -> DatabaseWrapper:
    return cast(DatabaseWrapper, connection)


def current_schema() -> str:
    return str(_tenant_connection().schema_name)


def use_public_schema() -> None:
    """Point this thread's connection back at the public schema."""
    _tenant_connection().set_schema_to_public()


def current_tenant() -> "Tenant":
    """The tenant whose schema this thread's connection is on (set by django-tenants)."""
    return cast("Tenant", _tenant_connection().tenant)
