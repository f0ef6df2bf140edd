"""403 and 404 on tenant hosts: a page in the app's layout for people, JSON under /api/."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.test import Client, RequestFactory

from chat.views import forbidden_page
from tenants.models import Tenant
from tenants.roles import STAFF
from tests.conftest import host_client
from tests.tenants.factories import http_login, make_user


def _staff_client(tenant: Tenant) -> Client:
    make_user(tenant, "sam", role=STAFF)
    client = host_client(tenant)
    assert http_login(client, "sam")
    return client


def test_a_staff_member_opening_the_approvals_inbox_gets_a_forbidden_page_in_the_app_layout(
    tenant_a: Tenant,
) -> None:
    response = _staff_client(tenant_a).get("/approvals/")

    assert response.status_code == 403
    assert "chat/error.html" in [t.name for t in response.templates]
    assert b'class="topbar"' in response.content
    assert b"Only approvers can open the approvals inbox" in response.content
    assert b'href="/"' in response.content and b"Back to the chat" in response.content


def test_a_forbidden_page_of_another_view_keeps_the_general_words(tenant_a: Tenant) -> None:
    request = RequestFactory(HTTP_HOST=f"{tenant_a.schema_name}.localhost").get("/somewhere/")
    request.user = AnonymousUser()

    response = forbidden_page(request, PermissionDenied())

    assert response.status_code == 403
    assert b"access to this page" in response.content and b"approvers" not in response.content


def test_an_unknown_path_gets_a_not_found_page_in_the_app_layout(tenant_a: Tenant) -> None:
    response = _staff_client(tenant_a).get("/no/such/page/")

    assert response.status_code == 404
    assert b'class="topbar"' in response.content and b"Page not found" in response.content


def test_an_anonymous_visitor_gets_the_not_found_page_without_the_signed_in_header(
    client_a: Client,
) -> None:
    response = client_a.get("/no/such/page/")

    assert response.status_code == 404
    assert b"Page not found" in response.content and b'class="topbar"' not in response.content


def test_an_unknown_api_path_answers_with_a_json_not_found_error(tenant_a: Tenant) -> None:
    response = _staff_client(tenant_a).get("/api/no/such/endpoint/")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_missing_conversation_over_the_api_keeps_its_json_error(tenant_a: Tenant) -> None:
    response = _staff_client(tenant_a).get(
        "/api/conversations/00000000-0000-0000-0000-000000000000/"
    )

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_the_error_page_shows_the_name_of_the_host_tenant_not_another(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    response = _staff_client(tenant_b).get("/no/such/page/")

    assert b"Beta Clinic" in response.content and b"Alpha Academy" not in response.content
