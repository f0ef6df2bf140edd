"""Attacks on onboarding: the platform admin's Add tenant page and ``manage.py tenant_create``.

An operator (or whoever holds the operator's session) names the new tenant's schema, its
domains and its first admin's password. None of that may reach outside the new tenant: an
existing schema (PostgreSQL's own, one made by hand, another tenant's) is refused, so the first
admin can never be written into ``public`` and sign in to the platform admin; domains are stored
the way hosts are looked up; a failure at any step leaves nothing behind.
"""

# The e2e fixtures are imported by name, which ruff reads as redefinitions.
# ruff: noqa: F811

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django_tenants.utils import schema_context

from tenants.models import Domain, Tenant
from tenants.services import (
    FirstAdmin,
    OnboardingRefused,
    TenantSpec,
    WrongSchemaError,
    platform_get_or_create,
    platform_superuser_upsert,
    tenant_onboard,
    user_upsert,
)
from tests.e2e.conftest import stack_env  # noqa: F401  (fixture)
from tests.e2e.processes import start_daphne
from tests.tenants.factories import http_login

PLATFORM_HOST = "platform.localhost"
OPERATOR = "operator"
OPERATOR_PASSWORD = "operator-password-9"
FIRST_ADMIN = "head"
FIRST_ADMIN_PASSWORD = "first-admin-password-7"
ADD_TENANT = "/admin/tenants/tenant/add/"


# -- helpers -----------------------------------------------------------------------------------


def _operator() -> Client:
    """The platform superuser, signed in to the platform admin (Django's test client)."""
    platform_get_or_create(domain=PLATFORM_HOST)
    platform_superuser_upsert(username=OPERATOR, password=OPERATOR_PASSWORD)
    client = Client(HTTP_HOST=PLATFORM_HOST)
    assert client.login(username=OPERATOR, password=OPERATOR_PASSWORD)
    return client


def _add_form(schema: str, *domains: str, **overrides: str) -> dict[str, Any]:
    """What the Add tenant page posts: the tenant, its first admin, one inline row per domain."""
    form: dict[str, Any] = {
        "name": "Kappa School",
        "schema_name": schema,
        "is_active": "on",
        "monthly_token_budget": "",
        "admin_username": FIRST_ADMIN,
        "admin_email": "head@kappa.example",
        "admin_password": FIRST_ADMIN_PASSWORD,
        "domains-TOTAL_FORMS": str(len(domains)),
        "domains-INITIAL_FORMS": "0",
        "domains-MIN_NUM_FORMS": "0",
        "domains-MAX_NUM_FORMS": "1000",
    }
    for index, domain in enumerate(domains):
        form[f"domains-{index}-domain"] = domain
        if index == 0:
            form[f"domains-{index}-is_primary"] = "on"
    form.update(overrides)
    return form


def _schema_exists(schema: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = %s)", [schema])
        return bool(cursor.fetchone()[0])


def _tables_in(schema: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_tables WHERE schemaname = %s", [schema])
        return int(cursor.fetchone()[0])


def _assert_nothing_created(schema: str, *domains: str) -> None:
    """No new tenant row (every tenant here is named "Kappa…"; ``public`` is the platform's),
    no domain row, and no first admin or role group in public."""
    assert not Tenant.objects.filter(name__startswith="Kappa").exists()
    for domain in domains:
        assert not Domain.objects.filter(domain__iexact=domain).exists()
    with schema_context("public"):
        assert not User.objects.filter(username=FIRST_ADMIN).exists()
        assert not Group.objects.exists()


def _drop(schema: str) -> None:
    tenant = Tenant.objects.filter(schema_name=schema).first()
    if tenant is not None:
        tenant.auto_drop_schema = True
        tenant.delete(force_drop=True)
    with connection.cursor() as cursor:
        cursor.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def _errors(response: Any) -> str:
    """The form's error lists on a re-rendered Add tenant page."""
    return " ".join(
        re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.content.decode(), re.S)
    )


@pytest.fixture
def new_schema() -> Iterator[str]:
    """A schema name for a tenant the test creates; dropped afterwards whatever happened."""
    yield "kappa"
    _drop("kappa")


# -- existing schemas --------------------------------------------------------------------------


def test_information_schema_is_refused_and_nothing_is_written_to_public(db: None) -> None:
    response = _operator().post(ADD_TENANT, _add_form("information_schema", "kappa.localhost"))

    assert response.status_code == 200
    assert "The schema name" in _errors(response)
    _assert_nothing_created("information_schema", "kappa.localhost")


def test_a_schema_created_by_hand_is_refused_and_left_as_it_was(db: None) -> None:
    with connection.cursor() as cursor:
        cursor.execute("CREATE SCHEMA handmade")
        cursor.execute("CREATE TABLE handmade.notes (body text)")

    response = _operator().post(ADD_TENANT, _add_form("handmade", "kappa.localhost"))

    assert response.status_code == 200
    assert "already exists" in _errors(response)
    _assert_nothing_created("handmade", "kappa.localhost")
    assert _tables_in("handmade") == 1


def test_another_tenants_schema_is_refused(tenant_a: Tenant) -> None:
    response = _operator().post(ADD_TENANT, _add_form(tenant_a.schema_name, "kappa.localhost"))

    assert response.status_code == 200
    assert Tenant.objects.filter(schema_name=tenant_a.schema_name).count() == 1
    assert not Domain.objects.filter(domain="kappa.localhost").exists()


@pytest.mark.parametrize(
    "schema", ["public", "pg_catalog", "pg_toast", "pg_kappa", "information_schema", "Kappa"]
)
def test_a_reserved_or_system_schema_name_is_refused(db: None, schema: str) -> None:
    response = _operator().post(ADD_TENANT, _add_form(schema, "kappa.localhost"))

    assert response.status_code == 200
    assert _errors(response)
    _assert_nothing_created(schema, "kappa.localhost")


@pytest.mark.parametrize(
    ("schema", "reason"),
    [("information_schema", "reserved by PostgreSQL"), ("handmade", "already exists")],
)
def test_the_command_refuses_an_existing_schema(db: None, schema: str, reason: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute("CREATE SCHEMA handmade")

    with pytest.raises(CommandError, match=reason):
        call_command(
            "tenant_create",
            schema,
            name="Kappa",
            domain=["kappa.localhost"],
            admin=FIRST_ADMIN,
            admin_password=FIRST_ADMIN_PASSWORD,
        )
    _assert_nothing_created(schema, "kappa.localhost")
    assert _tables_in("handmade") == 0


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_information_schema_through_daphne_is_refused_and_its_admin_cannot_sign_in(
    stack_env: dict[str, str], tmp_path: Path
) -> None:
    platform_get_or_create(domain=PLATFORM_HOST)
    platform_superuser_upsert(username=OPERATOR, password=OPERATOR_PASSWORD)
    process, port = start_daphne(stack_env, tmp_path)
    try:
        operator = _PlatformBrowser(port)
        assert operator.sign_in(OPERATOR, OPERATOR_PASSWORD)

        page = operator.post_form(ADD_TENANT, _add_form("information_schema", "kappa.localhost"))

        assert page.status_code == 200
        assert "The schema name" in page.text
        _assert_nothing_created("information_schema", "kappa.localhost")
        intruder = _PlatformBrowser(port)
        assert not intruder.sign_in(FIRST_ADMIN, FIRST_ADMIN_PASSWORD)
        assert intruder.get("/admin/auth/user/").status_code == 302
    finally:
        process.stop()


class _PlatformBrowser:
    """A cookie-keeping HTTP client for the platform host on a real daphne."""

    def __init__(self, port: int) -> None:
        self.client = httpx.Client(
            base_url=f"http://127.0.0.1:{port}", headers={"Host": PLATFORM_HOST}, timeout=60
        )

    def get(self, path: str) -> httpx.Response:
        return self.client.get(path)

    def post_form(self, path: str, data: dict[str, Any]) -> httpx.Response:
        page = self.client.get(path)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert token, page.text[:500]
        return self.client.post(path, data={**data, "csrfmiddlewaretoken": token.group(1)})

    def sign_in(self, username: str, password: str) -> bool:
        response = self.post_form(
            "/admin/login/?next=/admin/", {"username": username, "password": password}
        )
        return response.status_code == 302 and self.get("/admin/").status_code == 200


# -- domains -----------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_upper_case_and_international_domains_are_stored_as_hosts_are_looked_up(
    new_schema: str,
) -> None:
    form = _add_form(new_schema, " ACME.localhost ", "bücher.localhost.")

    response = _operator().post(ADD_TENANT, form)

    assert response.status_code == 302, _errors(response)
    tenant = Tenant.objects.get(schema_name=new_schema)
    assert set(tenant.domains.values_list("domain", flat=True)) == {
        "acme.localhost",
        "xn--bcher-kva.localhost",
    }
    assert tenant.get_primary_domain().domain == "acme.localhost"
    assert http_login(
        Client(HTTP_HOST="xn--bcher-kva.localhost"), FIRST_ADMIN, FIRST_ADMIN_PASSWORD
    )


@pytest.mark.parametrize(
    "domain",
    [
        "a b.localhost",
        "evil.com/x",
        "host:8000",
        "kappa..localhost",
        ".localhost",
        "-x.localhost",
        "x" * 64 + ".localhost",
        "kappa.localhost?x=1",
        "user@kappa.localhost",
        "",
    ],
)
def test_a_malformed_domain_is_refused_with_a_form_error(db: None, domain: str) -> None:
    response = _operator().post(ADD_TENANT, _add_form("kappa", domain))

    assert response.status_code == 200
    assert _errors(response)
    _assert_nothing_created("kappa", domain or "kappa.localhost")


def test_a_domain_of_another_tenant_in_other_case_is_refused(tenant_a: Tenant) -> None:
    taken = tenant_a.get_primary_domain().domain.upper()

    response = _operator().post(ADD_TENANT, _add_form("kappa", taken))

    assert response.status_code == 200
    assert "already" in _errors(response)
    _assert_nothing_created("kappa")
    assert Domain.objects.get(domain__iexact=taken).tenant == tenant_a


def test_another_tenants_domain_cannot_be_added_to_a_tenant_in_its_change_form(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    own = tenant_a.get_primary_domain()
    form = {
        "name": tenant_a.name,
        "is_active": "on",
        "monthly_token_budget": "",
        "time_zone": tenant_a.time_zone,
        "domains-TOTAL_FORMS": "2",
        "domains-INITIAL_FORMS": "1",
        "domains-MIN_NUM_FORMS": "0",
        "domains-MAX_NUM_FORMS": "1000",
        "domains-0-id": str(own.pk),
        "domains-0-tenant": str(tenant_a.pk),
        "domains-0-domain": own.domain,
        "domains-0-is_primary": "on",
        "domains-1-tenant": str(tenant_a.pk),
        "domains-1-domain": tenant_b.get_primary_domain().domain.upper(),
    }

    response = _operator().post(f"/admin/tenants/tenant/{tenant_a.pk}/change/", form)

    assert response.status_code == 200
    assert "already belongs to another tenant" in _errors(response)
    assert list(tenant_a.domains.values_list("domain", flat=True)) == [own.domain]
    assert tenant_b.domains.count() == 1


def test_the_same_domain_twice_in_one_form_is_refused(db: None) -> None:
    response = _operator().post(
        ADD_TENANT, _add_form("kappa", "kappa.localhost", "KAPPA.localhost")
    )

    assert response.status_code == 200
    assert _errors(response)
    _assert_nothing_created("kappa", "kappa.localhost")


def test_the_command_refuses_a_malformed_domain(db: None) -> None:
    with pytest.raises(CommandError, match="domain"):
        call_command(
            "tenant_create",
            "kappa",
            name="Kappa",
            domain=["evil.com/x"],
            admin=FIRST_ADMIN,
            admin_password=FIRST_ADMIN_PASSWORD,
        )
    _assert_nothing_created("kappa", "evil.com/x")


# -- the first admin's password ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("username", "password", "named"),
    [
        ("headmaster01", "headmaster01", "username"),
        ("headmaster01", "Headmaster01!", "username"),
        ("head", "kappaspringfield", "tenant"),
        ("head", "springfield7", "tenant"),
    ],
)
def test_a_password_like_the_username_or_the_tenant_name_is_refused(
    db: None, username: str, password: str, named: str
) -> None:
    form = _add_form(
        "kappa",
        "kappa.localhost",
        name="Kappa Springfield",
        admin_username=username,
        admin_password=password,
    )

    response = _operator().post(ADD_TENANT, form)

    assert response.status_code == 200
    assert "too similar to the" in _errors(response)
    assert named in _errors(response)
    _assert_nothing_created("kappa", "kappa.localhost")


def test_the_command_refuses_a_password_like_the_tenant_name(db: None) -> None:
    with pytest.raises(CommandError, match="too similar"):
        call_command(
            "tenant_create",
            "kappa",
            name="Kappa Springfield",
            domain=["kappa.localhost"],
            admin=FIRST_ADMIN,
            admin_password="springfield7",
        )
    _assert_nothing_created("kappa", "kappa.localhost")


# -- all or nothing ----------------------------------------------------------------------------


@pytest.fixture
def domain_insert_fails() -> Iterator[str]:
    """A real database failure at the last step of onboarding: inserting this domain raises."""
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE FUNCTION public.test_refuse_domain() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN IF NEW.domain = 'boom.localhost' THEN RAISE EXCEPTION 'disk full'; END IF; "
            "RETURN NEW; END $$"
        )
        cursor.execute(
            "CREATE TRIGGER test_refuse_domain BEFORE INSERT ON public.tenants_domain "
            "FOR EACH ROW EXECUTE FUNCTION public.test_refuse_domain()"
        )
    yield "boom.localhost"
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER IF EXISTS test_refuse_domain ON public.tenants_domain")
        cursor.execute("DROP FUNCTION IF EXISTS public.test_refuse_domain()")


@pytest.mark.django_db(transaction=True)
def test_a_failure_midway_through_the_command_leaves_nothing_behind(
    new_schema: str, domain_insert_fails: str
) -> None:
    with pytest.raises(CommandError):
        call_command(
            "tenant_create",
            new_schema,
            name="Kappa",
            domain=["kappa.localhost", domain_insert_fails],
            admin=FIRST_ADMIN,
            admin_password=FIRST_ADMIN_PASSWORD,
        )

    _assert_nothing_created(new_schema, "kappa.localhost", domain_insert_fails)
    assert not _schema_exists(new_schema)


@pytest.mark.django_db(transaction=True)
def test_a_failure_midway_through_add_tenant_leaves_nothing_behind_and_says_so(
    new_schema: str, domain_insert_fails: str
) -> None:
    operator = _operator()

    response = operator.post(
        ADD_TENANT, _add_form(new_schema, "kappa.localhost", domain_insert_fails), follow=True
    )

    assert response.status_code == 200
    assert "nothing was kept" in response.content.decode()
    _assert_nothing_created(new_schema, "kappa.localhost", domain_insert_fails)
    assert not _schema_exists(new_schema)


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_onboardings_of_one_schema_let_exactly_one_through(
    new_schema: str,
) -> None:
    outcomes: dict[str, object] = {}
    start = threading.Barrier(2)

    def onboard(domain: str) -> None:
        spec = TenantSpec(schema_name=new_schema, name="Kappa", domains=(domain,))
        start.wait()
        try:
            admin = FirstAdmin(username=FIRST_ADMIN, password=FIRST_ADMIN_PASSWORD)
            outcomes[domain] = tenant_onboard(spec=spec, first_admin=admin)
        except Exception as error:  # the outcome under test: which exception, if any
            outcomes[domain] = error
        finally:
            connection.close()

    threads = [
        threading.Thread(target=onboard, args=(d,)) for d in ("k1.localhost", "k2.localhost")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    kinds = sorted(type(outcome).__name__ for outcome in outcomes.values())
    assert kinds == [OnboardingRefused.__name__, Tenant.__name__], outcomes
    assert Tenant.objects.filter(schema_name=new_schema).count() == 1
    assert Domain.objects.filter(tenant__schema_name=new_schema).count() == 1


# -- where the first admin lives ---------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_first_admin_of_a_new_tenant_cannot_sign_in_to_the_platform_admin(
    new_schema: str,
) -> None:
    response = _operator().post(ADD_TENANT, _add_form(new_schema, "kappa.localhost"))
    assert response.status_code == 302, _errors(response)

    platform = Client(HTTP_HOST=PLATFORM_HOST)
    platform.post("/admin/login/", {"username": FIRST_ADMIN, "password": FIRST_ADMIN_PASSWORD})

    assert "_auth_user_id" not in platform.session
    assert http_login(Client(HTTP_HOST="kappa.localhost"), FIRST_ADMIN, FIRST_ADMIN_PASSWORD)
    with schema_context("public"):
        assert not User.objects.filter(username=FIRST_ADMIN).exists()


def test_a_user_is_never_written_for_a_tenant_whose_schema_is_missing(db: None) -> None:
    ghost = Tenant(schema_name="ghost", name="Ghost")

    with pytest.raises(WrongSchemaError):
        user_upsert(tenant=ghost, username=FIRST_ADMIN, password="x", role="tenant admin")

    with schema_context("public"):
        assert not User.objects.filter(username=FIRST_ADMIN).exists()


def test_a_user_is_never_written_for_a_tenant_on_a_system_schema(db: None) -> None:
    system = Tenant(schema_name="information_schema", name="System")

    with pytest.raises(WrongSchemaError):
        user_upsert(tenant=system, username=FIRST_ADMIN, password="x", role="tenant admin")

    with schema_context("public"):
        assert not User.objects.filter(username=FIRST_ADMIN).exists()
