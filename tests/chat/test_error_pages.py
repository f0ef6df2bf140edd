"""403, 404, 413 and 500 with Django's test client: a page in the app's layout for people, JSON
under /api/. tests/security/test_error_pages.py sends the same requests through daphne."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.test import Client, RequestFactory
from django.views.defaults import server_error

from chat.views import forbidden_page
from tenants.models import Tenant
from tenants.roles import STAFF
from tenants.services import platform_get_or_create
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


def test_the_server_error_page_renders_without_touching_the_database() -> None:
    """No ``db`` fixture: pytest-django fails any query, as a database that is down would."""
    request = RequestFactory(HTTP_HOST="alpha.localhost").get("/")

    response = server_error(request)

    assert response.status_code == 500
    assert b'data-testid="error-page"' in response.content
    assert b"countersign.css" in response.content and b'class="topbar"' not in response.content


def test_a_request_to_a_host_of_no_tenant_gets_a_not_found_not_a_server_error(db: None) -> None:
    response = Client(HTTP_HOST="nowhere.localhost").get("/")

    assert response.status_code == 404


OVER_THE_LIMIT = settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1024


def test_an_oversize_form_is_a_413_page_in_the_app_layout_and_the_user_stays_signed_in(
    tenant_a: Tenant,
) -> None:
    client = _staff_client(tenant_a)

    response = client.post("/settings/notifications/", {"address": "x" * OVER_THE_LIMIT})

    assert response.status_code == 413
    assert b'class="topbar"' in response.content and b"too large" in response.content
    assert client.get("/settings/notifications/").status_code == 200


def test_an_oversize_body_to_the_api_is_a_413_json_error(tenant_a: Tenant) -> None:
    client = _staff_client(tenant_a)

    form = client.post("/api/conversations/", {"title": "x" * OVER_THE_LIMIT})
    json_body = client.post(
        "/api/conversations/",
        b'{"title": "' + b"x" * OVER_THE_LIMIT + b'"}',
        content_type="application/json",
    )

    assert [form.status_code, json_body.status_code] == [413, 413]
    assert form.json()["error"]["code"] == json_body.json()["error"]["code"] == "too_large"


def test_an_oversize_form_on_the_platform_host_is_a_plain_413(db: None) -> None:
    platform_get_or_create(domain=settings.PLATFORM_DOMAIN)

    response = Client(HTTP_HOST=settings.PLATFORM_DOMAIN).post(
        "/admin/login/", {"username": "x" * OVER_THE_LIMIT}
    )

    assert response.status_code == 413 and b"too large" in response.content
