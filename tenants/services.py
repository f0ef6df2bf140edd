"""Creating tenants and their users. The only place that writes Tenant, Domain or roles."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace

from django.contrib.auth import password_validation
from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.db import DatabaseError, connection, transaction
from django_tenants.utils import (
    get_public_schema_name,
    schema_context,
    schema_exists,
    tenant_context,
)

from core.schema import current_schema
from tenants.models import Domain, Tenant
from tenants.onboarding_rules import HostNameError, host_name_normalised, schema_name_problem
from tenants.roles import ROLES, TENANT_ADMIN, UnknownRoleError, roles_sync

# Every operator's Add tenant and `tenant_create` take this transaction-level advisory lock
# before asking whether a schema or domain is free, so two of them cannot both see "free".
_ONBOARDING_LOCK = 0x7E4A_0B0A


class OnboardingRefused(Exception):
    """A new tenant refused before anything was written. ``field`` is the Add tenant form's
    field at fault (``SCHEMA_FIELD``, ``DOMAIN_FIELD``, ``PASSWORD_FIELD``); ``messages`` are
    sentences for that field, or for the command's error."""

    def __init__(self, field: str, *messages: str) -> None:
        super().__init__(" ".join(messages))
        self.field = field
        self.messages = list(messages)


class OnboardingFailed(Exception):
    """Creating a tenant failed midway (a database error); its transaction was rolled back, so
    no tenant row, domain, schema or user was kept."""


class WrongSchemaError(RuntimeError):
    """This connection would write a tenant's users or groups outside the tenant's own schema
    (a schema that does not exist or holds no auth tables, where the search path falls through
    to public). Nothing was written."""


SCHEMA_FIELD = "schema_name"
DOMAIN_FIELD = "domain"
PASSWORD_FIELD = "admin_password"


@dataclass(frozen=True)
class TenantSpec:
    schema_name: str
    name: str
    domains: tuple[str, ...]
    is_active: bool = True
    monthly_token_budget: int | None = None


@dataclass(frozen=True)
class FirstAdmin:
    """The new tenant's first tenant admin, created inside its schema with the tenant."""

    username: str
    password: str
    email: str = ""


def schema_name_check(*, schema_name: str) -> str:
    """``schema_name`` if a new tenant may have it: well spelt, not reserved, and neither a
    tenant's nor any schema that exists in the database (``information_schema``, one made by
    hand). Raises ``OnboardingRefused``."""
    problem = schema_name_problem(schema_name)
    if problem is None and (
        Tenant.objects.filter(schema_name__iexact=schema_name).exists()
        or schema_exists(schema_name, case_sensitive=False)
    ):
        problem = f"{schema_name!r} already exists in the database; choose a new name"
    if problem is not None:
        raise OnboardingRefused(SCHEMA_FIELD, f"The schema name {problem}.")
    return schema_name


def domain_check(*, domain: str, tenant: Tenant | None = None) -> str:
    """``domain`` normalised (``tenants.onboarding_rules.host_name_normalised``) if it is a host
    name no tenant but ``tenant`` has, compared ignoring case. Raises ``OnboardingRefused``."""
    try:
        host = host_name_normalised(domain)
    except HostNameError as error:
        raise OnboardingRefused(DOMAIN_FIELD, f"The domain {domain!r} {error}.") from error
    taken = Domain.objects.filter(domain__iexact=host)
    if tenant is not None and tenant.pk is not None:
        taken = taken.exclude(tenant=tenant)
    if taken.exists():
        raise OnboardingRefused(
            DOMAIN_FIELD, f"The domain {host!r} already belongs to another tenant."
        )
    return host


def domains_check(*, domains: Sequence[str], tenant: Tenant | None = None) -> tuple[str, ...]:
    """Every domain through ``domain_check``, at least one, none twice (after normalising)."""
    hosts = tuple(domain_check(domain=domain, tenant=tenant) for domain in domains)
    if not hosts:
        raise OnboardingRefused(DOMAIN_FIELD, "A tenant needs at least one domain.")
    twice = sorted({host for host in hosts if hosts.count(host) > 1})
    if twice:
        raise OnboardingRefused(DOMAIN_FIELD, f"The domain {twice[0]!r} is listed twice.")
    return hosts


class _PasswordOwner:
    """What a new account's password must not resemble, as Django's similarity validator reads
    a user: attributes, and ``_meta.get_field(name).verbose_name`` for its message."""

    _names = {"username": "username", "email": "e-mail address", "tenant_name": "tenant's name"}

    def __init__(self, *, username: str, email: str, tenant_name: str) -> None:
        self.username, self.email, self.tenant_name = username, email, tenant_name
        self._meta = self

    def get_field(self, name: str) -> SimpleNamespace:
        return SimpleNamespace(verbose_name=self._names[name])


def account_password_check(
    *, password: str, username: str, tenant_name: str, email: str = ""
) -> None:
    """The deployment's ``AUTH_PASSWORD_VALIDATORS``, plus similarity to the username, e-mail and
    the tenant's name (an operator-made password that spells the tenant is guessed first).
    Raises ``OnboardingRefused`` with the validators' messages."""
    validators = [
        validator
        for validator in password_validation.get_default_password_validators()
        if not isinstance(validator, password_validation.UserAttributeSimilarityValidator)
    ]
    validators.append(
        password_validation.UserAttributeSimilarityValidator(
            user_attributes=("username", "email", "tenant_name")
        )
    )
    owner = _PasswordOwner(username=username, email=email, tenant_name=tenant_name)
    try:
        # Duck-typed: the validators only read the owner's attributes and its _meta.
        password_validation.validate_password(
            password,
            owner,  # type: ignore[arg-type]
            password_validators=validators,
        )
    except ValidationError as error:
        raise OnboardingRefused(PASSWORD_FIELD, *error.messages) from error


def tenant_onboard(*, spec: TenantSpec, first_admin: FirstAdmin) -> Tenant:
    """Create a new tenant: a schema that did not exist (created and migrated), its roles and
    first tenant admin inside that schema, and its domains; all of it or nothing.

    The checks of ``schema_name_check``, ``domains_check`` and ``account_password_check`` run
    again here, under a lock, in the transaction that creates the schema. Raises
    ``OnboardingRefused`` (nothing written) or ``OnboardingFailed`` (nothing kept).
    """
    try:
        return _tenant_onboard(spec=spec, first_admin=first_admin)
    except (DatabaseError, WrongSchemaError) as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise OnboardingFailed(
            f"tenant {spec.schema_name!r} could not be created ({reason}); nothing was kept"
        ) from error


@transaction.atomic
def _tenant_onboard(*, spec: TenantSpec, first_admin: FirstAdmin) -> Tenant:
    with schema_context(get_public_schema_name()):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_ONBOARDING_LOCK])
        schema = schema_name_check(schema_name=spec.schema_name)
        domains = domains_check(domains=spec.domains)
        account_password_check(
            password=first_admin.password,
            username=first_admin.username,
            email=first_admin.email,
            tenant_name=spec.name,
        )
        tenant = Tenant(
            schema_name=schema,
            name=spec.name,
            is_active=spec.is_active,
            monthly_token_budget=spec.monthly_token_budget,
        )
        # Creates the schema (it did not exist a moment ago, and the lock keeps it so) and
        # migrates it, inside this transaction.
        tenant.save(verbosity=0)
    with tenant_context(tenant):
        schema_is_own_check(tenant=tenant)
        roles_sync()
    user_upsert(
        tenant=tenant,
        username=first_admin.username,
        password=first_admin.password,
        role=TENANT_ADMIN,
        email=first_admin.email,
    )
    # Last: the tenant answers at its hosts only once everything behind them exists.
    with schema_context(get_public_schema_name()):
        for index, domain in enumerate(domains):
            Domain.objects.create(domain=domain, tenant=tenant, is_primary=index == 0)
    return tenant


def tenant_get_or_create(*, spec: TenantSpec) -> tuple[Tenant, bool]:
    """Idempotently create a tenant with its schema (migrated, with roles) and domains.

    For the demo, the benchmarks and the test fixtures, which re-create a row for a schema they
    made before; it adopts an existing schema of a well-spelt, unreserved name. Operators'
    doors (Add tenant, ``tenant_create``) go through ``tenant_onboard`` instead.
    """
    problem = schema_name_problem(spec.schema_name)
    if problem is not None:
        raise OnboardingRefused(SCHEMA_FIELD, f"The schema name {problem}.")
    with schema_context("public"):
        tenant = Tenant.objects.filter(schema_name=spec.schema_name).first()
        created = tenant is None
        if tenant is None:
            tenant = Tenant(schema_name=spec.schema_name, name=spec.name)
            tenant.save(verbosity=0)
        for index, domain in enumerate(host_name_normalised(d) for d in spec.domains):
            owner = Domain.objects.filter(domain__iexact=domain).exclude(tenant=tenant).first()
            if owner is not None:
                raise OnboardingRefused(
                    DOMAIN_FIELD, f"The domain {domain!r} already belongs to {owner.tenant}."
                )
            Domain.objects.get_or_create(
                domain=domain, defaults={"tenant": tenant, "is_primary": index == 0}
            )
    with tenant_context(tenant):
        schema_is_own_check(tenant=tenant)
        roles_sync()
    return tenant, created


def schema_is_own_check(*, tenant: Tenant) -> None:
    """Fail closed unless this connection's users and groups tables are ``tenant``'s own.

    django-tenants puts ``<schema>, public`` on the search path: for a schema that does not
    exist, or one without auth tables (``information_schema``), ``auth_user`` would resolve to
    the platform's own table in public. Asked of PostgreSQL, not of Python state.
    """
    if tenant.schema_name == get_public_schema_name() or current_schema() != tenant.schema_name:
        raise WrongSchemaError(f"not on the schema of tenant {tenant.schema_name!r}")
    tables = [User._meta.db_table, Group._meta.db_table, User.groups.through._meta.db_table]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.name FROM unnest(%s::text[]) AS t(name)"
            " LEFT JOIN pg_class c ON c.oid = to_regclass(quote_ident(t.name))"
            " LEFT JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname IS DISTINCT FROM %s",
            [tables, tenant.schema_name],
        )
        elsewhere = [name for (name,) in cursor.fetchall()]
    if elsewhere:
        raise WrongSchemaError(
            f"{', '.join(elsewhere)} of tenant {tenant.schema_name!r} are not in its schema"
        )


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
        schema_is_own_check(tenant=tenant)
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
            domain=host_name_normalised(domain), defaults={"tenant": tenant, "is_primary": True}
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
