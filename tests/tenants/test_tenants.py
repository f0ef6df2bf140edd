"""Creating tenants: schema, domains, the three roles, the first admin; the demo bootstrap."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command
from django.test import Client
from django_tenants.utils import schema_context, tenant_context

from tenants.demo import DEMO_PASSWORD
from tenants.models import Domain, Tenant
from tenants.roles import APPROVER, ROLES, STAFF, TENANT_ADMIN
from tenants.services import user_set_role
from tests.tenants.factories import http_login, make_user


def test_every_tenant_has_the_three_roles(tenant_a: Tenant) -> None:
    with tenant_context(tenant_a):
        assert set(Group.objects.values_list("name", flat=True)) >= set(ROLES)


def test_only_the_tenant_admin_role_opens_django_admin(tenant_a: Tenant) -> None:
    staff = make_user(tenant_a, "sam", role=STAFF)
    admin = make_user(tenant_a, "ada", role=TENANT_ADMIN)

    assert not staff.is_staff
    assert admin.is_staff
    with tenant_context(tenant_a):
        assert admin.has_perm("auth.change_user")
        assert not staff.has_perm("auth.change_user")


def test_changing_a_role_replaces_the_previous_one(tenant_a: Tenant) -> None:
    user = make_user(tenant_a, "pat", role=TENANT_ADMIN)
    with tenant_context(tenant_a):
        user_set_role(user=user, role=APPROVER)
        user.refresh_from_db()

        assert list(user.groups.values_list("name", flat=True)) == [APPROVER]
        assert not user.is_staff


@pytest.mark.django_db(transaction=True)
def test_tenant_create_command_makes_schema_domain_roles_and_admin() -> None:
    call_command(
        "tenant_create",
        "gamma",
        name="Gamma Shop",
        domain=["gamma.localhost"],
        admin="owner",
        admin_password="a-long-password-1",
    )

    tenant = Tenant.objects.get(schema_name="gamma")
    assert Domain.objects.get(domain="gamma.localhost").tenant == tenant
    with tenant_context(tenant):
        owner = User.objects.get(username="owner")
        assert owner.groups.filter(name=TENANT_ADMIN).exists()
    assert http_login(Client(HTTP_HOST="gamma.localhost"), "owner", "a-long-password-1")
    tenant.auto_drop_schema = True
    tenant.delete(force_drop=True)


@pytest.mark.parametrize(
    "schema", ["public", "Bad-Name", "9lives", "has space", "alpha__query", "x" * 57]
)
def test_tenant_create_refuses_a_bad_schema_name(db: None, schema: str) -> None:
    with pytest.raises(CommandError, match="schema"):
        call_command(
            "tenant_create", schema, name="X", domain=["x.localhost"], admin_password="pw-123456"
        )


def test_tenant_create_refuses_a_domain_of_another_tenant(tenant_a: Tenant) -> None:
    with pytest.raises(CommandError, match="already belongs"):
        call_command(
            "tenant_create",
            "delta",
            name="Delta",
            domain=["alpha.localhost"],
            admin_password="pw-123456",
        )


@pytest.mark.django_db(transaction=True)
def test_bootstrap_demo_is_idempotent_and_logs_in_each_role() -> None:
    call_command("bootstrap_demo")
    call_command("bootstrap_demo")

    assert set(Tenant.objects.values_list("schema_name", flat=True)) >= {"demo", "acme", "public"}
    assert set(Domain.objects.values_list("domain", flat=True)) >= {
        "localhost",
        "demo.localhost",
        "acme.localhost",
    }
    for host in ("localhost", "acme.localhost"):
        for username in ("staff", "approver", "admin"):
            assert http_login(Client(HTTP_HOST=host), username, DEMO_PASSWORD)
    with schema_context("demo"):
        assert User.objects.count() == 3
    admin = Client(HTTP_HOST="localhost")
    http_login(admin, "admin", DEMO_PASSWORD)
    assert admin.get("/admin/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_platform_admin_manages_tenants_on_the_platform_host() -> None:
    call_command("bootstrap_demo")
    platform = Client(HTTP_HOST="platform.localhost")
    platform.post("/admin/login/", {"username": "platform", "password": DEMO_PASSWORD})

    page = platform.get("/admin/tenants/tenant/")

    assert page.status_code == 200
    assert "Acme Clinic" in page.content.decode()
    tenant_admin = Client(HTTP_HOST="localhost")
    http_login(tenant_admin, "admin", DEMO_PASSWORD)
    assert tenant_admin.get("/admin/tenants/tenant/").status_code == 404


def test_tenant_create_without_a_password_or_a_terminal_says_how_to_give_one(
    db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TENANT_ADMIN_PASSWORD", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # a script or a pipe: nobody to ask

    with pytest.raises(CommandError, match="--admin-password, set TENANT_ADMIN_PASSWORD"):
        call_command("tenant_create", "epsilon", name="Epsilon", domain=["epsilon.localhost"])

    assert not Tenant.objects.filter(schema_name="epsilon").exists()


@pytest.mark.django_db(transaction=True)
def test_tenant_create_takes_the_admin_password_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TENANT_ADMIN_PASSWORD", "a-long-password-2")
    monkeypatch.setattr("sys.stdin", io.StringIO(""))

    call_command("tenant_create", "zeta", name="Zeta", domain=["zeta.localhost"], admin="owner")

    with tenant_context(Tenant.objects.get(schema_name="zeta")):
        assert User.objects.get(username="owner").check_password("a-long-password-2")
