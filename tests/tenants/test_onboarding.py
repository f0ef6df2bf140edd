"""Onboarding without a command line: the platform host's landing page, and a tenant created
in the platform admin together with its first tenant admin."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django_tenants.utils import tenant_context

from tenants.models import Tenant
from tenants.roles import TENANT_ADMIN
from tenants.services import platform_get_or_create, platform_superuser_upsert
from tests.tenants.factories import http_login, make_user

PLATFORM_HOST = "platform.localhost"
OPERATOR_PASSWORD = "operator-password-9"
FIRST_ADMIN_PASSWORD = "first-admin-password-7"


def _operator() -> Client:
    platform_get_or_create(domain=PLATFORM_HOST)
    platform_superuser_upsert(username="operator", password=OPERATOR_PASSWORD)
    client = Client(HTTP_HOST=PLATFORM_HOST)
    assert client.login(username="operator", password=OPERATOR_PASSWORD)
    return client


def _add_form(schema: str, domain: str, **overrides: str) -> dict[str, Any]:
    return {
        "name": "Delta School",
        "schema_name": schema,
        "is_active": "on",
        "monthly_token_budget": "",
        "admin_username": "head",
        "admin_email": "head@delta.example",
        "admin_password": FIRST_ADMIN_PASSWORD,
        "domains-TOTAL_FORMS": "1",
        "domains-INITIAL_FORMS": "0",
        "domains-MIN_NUM_FORMS": "0",
        "domains-MAX_NUM_FORMS": "1000",
        "domains-0-domain": domain,
        "domains-0-is_primary": "on",
        **overrides,
    }


def _drop(schema: str) -> None:
    tenant = Tenant.objects.filter(schema_name=schema).first()
    if tenant is not None:
        tenant.auto_drop_schema = True
        tenant.delete(force_drop=True)


def test_the_platform_host_shows_a_landing_page_with_the_admin_and_the_probes(
    db: None,
) -> None:
    platform_get_or_create(domain=PLATFORM_HOST)

    page = Client(HTTP_HOST=PLATFORM_HOST).get("/")

    assert page.status_code == 200
    for link in (b'href="/admin/"', b'href="/healthz"', b'href="/readyz"'):
        assert link in page.content


def test_a_tenant_host_does_not_serve_the_platform_landing_page(client_a: Client) -> None:
    assert b"Countersign platform" not in client_a.get("/").content


@pytest.mark.django_db(transaction=True)
def test_a_tenant_created_in_the_platform_admin_signs_in_with_its_first_admin(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    try:
        response = _operator().post(
            "/admin/tenants/tenant/add/", _add_form("delta", "delta.localhost")
        )
        assert response.status_code == 302, response.content.decode()[:2000]

        tenant_host = Client(HTTP_HOST="delta.localhost")
        assert http_login(tenant_host, "head", FIRST_ADMIN_PASSWORD)
        assert tenant_host.get("/admin/").status_code == 200
        with tenant_context(Tenant.objects.get(schema_name="delta")):
            assert User.objects.get(username="head").groups.filter(name=TENANT_ADMIN).exists()
        assert FIRST_ADMIN_PASSWORD not in caplog.text
    finally:
        _drop("delta")


def test_the_tenant_add_form_refuses_a_weak_first_admin_password(db: None) -> None:
    response = _operator().post(
        "/admin/tenants/tenant/add/",
        _add_form("epsilon", "epsilon.localhost", admin_password="123"),
    )

    assert response.status_code == 200
    assert not Tenant.objects.filter(schema_name="epsilon").exists()


def test_the_tenant_add_form_refuses_a_schema_name_that_is_not_a_plain_identifier(
    db: None,
) -> None:
    response = _operator().post(
        "/admin/tenants/tenant/add/", _add_form("bad__name", "bad.localhost")
    )

    assert response.status_code == 200
    assert not Tenant.objects.filter(schema_name="bad__name").exists()


def test_the_tenant_add_form_refuses_a_domain_of_another_tenant(tenant_a: Tenant) -> None:
    response = _operator().post(
        "/admin/tenants/tenant/add/", _add_form("zeta", tenant_a.get_primary_domain().domain)
    )

    assert response.status_code == 200
    assert not Tenant.objects.filter(schema_name="zeta").exists()


def test_a_tenant_admin_cannot_reach_the_tenant_add_form_on_a_tenant_host(
    tenant_a: Tenant,
) -> None:
    make_user(tenant_a, "ada", role=TENANT_ADMIN)
    client = Client(HTTP_HOST="alpha.localhost")
    assert http_login(client, "ada")

    assert client.get("/admin/tenants/tenant/add/").status_code == 404
