"""`manage.py platform_create`: the production way to make the platform host and its operator
(a superuser in the public schema); safe to run again, and clear when it refuses."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django_tenants.utils import schema_context

from tenants.models import Domain, Tenant

PASSWORD = "a long operator passphrase 42"


@pytest.fixture
def password_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLATFORM_ADMIN_PASSWORD", PASSWORD)


def test_it_creates_the_platform_host_and_its_superuser_once_however_often_it_runs(
    db: None, password_in_env: None
) -> None:
    for _ in range(2):
        call_command("platform_create", domain="ops.example.com", admin_email="ops@example.com")

    with schema_context("public"):
        domain = Domain.objects.get(domain="ops.example.com")
        operator = User.objects.get(username="platform")
    assert domain.tenant.schema_name == "public"
    assert operator.is_superuser and operator.email == "ops@example.com"
    assert operator.check_password(PASSWORD)


def test_a_domain_a_tenant_already_serves_is_refused(
    db: None, tenant_a: Tenant, password_in_env: None
) -> None:
    taken = str(tenant_a.get_primary_domain().domain)

    with pytest.raises(CommandError, match=f"{taken} already serves tenant"):
        call_command("platform_create", domain=taken, admin_email="ops@example.com")


def test_without_a_password_in_the_environment_or_a_terminal_it_refuses(
    db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PLATFORM_ADMIN_PASSWORD", raising=False)

    with pytest.raises(CommandError, match="PLATFORM_ADMIN_PASSWORD"):
        call_command("platform_create", domain="ops.example.com", admin_email="ops@example.com")

    with schema_context("public"):
        assert not Domain.objects.filter(domain="ops.example.com").exists()
