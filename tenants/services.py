"""Creating tenants and their users. The only place that writes Tenant, Domain or roles."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.contrib.auth.models import Group, User
from django.db import transaction
from django_tenants.utils import schema_context, tenant_context

from tenants.models import Domain, Tenant
from tenants.roles import ROLES, TENANT_ADMIN, UnknownRoleError, roles_sync


class TenantExistsError(Exception):
    pass


@dataclass(frozen=True)
class TenantSpec:
    schema_name: str
    name: str
    domains: tuple[str, ...]


def schema_name_problem(schema: str) -> str | None:
    """Why ``schema`` cannot name a new tenant's schema, or None if it can."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", schema):
        return "must start with a letter and use only a-z, 0-9 and '_'"
    if schema == "public":
        return "must not be 'public'"
    # A tenant's read-only query views live in "<schema>__query" (chat's query_data), which
    # must neither be another tenant's schema nor be cut at PostgreSQL's 63 characters.
    if "__" in schema or len(schema) > 56:
        return "must not contain '__' nor be longer than 56 characters"
    return None


def tenant_get_or_create(*, spec: TenantSpec) -> tuple[Tenant, bool]:
    """Idempotently create a tenant with its schema (migrated, with roles) and domains."""
    with schema_context("public"):
        tenant = Tenant.objects.filter(schema_name=spec.schema_name).first()
        created = tenant is None
        if tenant is None:
            tenant = Tenant(schema_name=spec.schema_name, name=spec.name)
            tenant.save(verbosity=0)
        # Stored lower-case: hosts are looked up lower-cased (tenants.middleware, tenants.asgi).
        for index, domain in enumerate(d.lower() for d in spec.domains):
            owner = Domain.objects.filter(domain=domain).exclude(tenant=tenant).first()
            if owner is not None:
                raise TenantExistsError(f"domain {domain!r} already belongs to {owner.tenant}")
            Domain.objects.get_or_create(
                domain=domain, defaults={"tenant": tenant, "is_primary": index == 0}
            )
    with tenant_context(tenant):
        roles_sync()
    return tenant, created


def tenant_create(*, spec: TenantSpec) -> Tenant:
    """Create a new tenant; refuses a schema name or domain that is already taken."""
    with schema_context("public"):
        if Tenant.objects.filter(schema_name=spec.schema_name).exists():
            raise TenantExistsError(f"a tenant with schema {spec.schema_name!r} already exists")
    tenant, _ = tenant_get_or_create(spec=spec)
    return tenant


@transaction.atomic
def user_set_role(*, user: User, role: str) -> None:
    """Give a user exactly one role in the current tenant (tenant admins can use Django admin)."""
    if role not in ROLES:
        raise UnknownRoleError(f"unknown role {role!r}; expected one of {', '.join(ROLES)}")
    user.groups.remove(*Group.objects.filter(name__in=ROLES))
    user.groups.add(Group.objects.get(name=role))
    user.is_staff = role == TENANT_ADMIN
    user.save(update_fields=["is_staff"])


def user_upsert(
    *, tenant: Tenant, username: str, password: str, role: str, email: str = ""
) -> User:
    """Create or update a user of ``tenant`` with ``role`` and ``password``."""
    with tenant_context(tenant):
        user, _ = User.objects.get_or_create(username=username, defaults={"email": email})
        user.set_password(password)
        user.email = email or user.email
        user.save()
        user_set_role(user=user, role=role)
        return user


def platform_get_or_create(*, domain: str) -> Tenant:
    """The public-schema tenant row that makes ``domain`` serve the platform admin."""
    with schema_context("public"):
        tenant, _ = Tenant.objects.get_or_create(
            schema_name="public", defaults={"name": "Countersign platform"}
        )
        Domain.objects.get_or_create(
            domain=domain.lower(), defaults={"tenant": tenant, "is_primary": True}
        )
        return tenant


def platform_superuser_upsert(*, username: str, password: str, email: str = "") -> User:
    """A platform operator: a superuser in the public schema (manages tenants, nothing inside)."""
    with schema_context("public"):
        user, _ = User.objects.get_or_create(username=username, defaults={"email": email})
        user.set_password(password)
        user.is_staff = user.is_superuser = True
        user.save()
        return user
