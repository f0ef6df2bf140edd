"""GET /api/kb/search/: authenticated JSON search, per tenant host (acceptance 4)."""

from __future__ import annotations

import pytest
from django.test import Client
from django_tenants.utils import tenant_context

from chat.tokens import api_token_create
from tenants.models import Tenant
from tests.knowledge.factories import EXPENSES, LEAVE_POLICY, make_document
from tests.tenants.factories import http_login, make_user

pytestmark = pytest.mark.usefixtures("fake_embedder")


@pytest.fixture
def alice(tenant_a: Tenant, client_a: Client) -> Client:
    make_user(tenant_a, "alice")
    assert http_login(client_a, "alice")
    return client_a


def test_an_anonymous_request_gets_401_json(client_a: Client) -> None:
    response = client_a.get("/api/kb/search/", {"q": "leave"})

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthenticated"


def test_a_signed_in_user_gets_ranked_chunks_with_three_scores(
    tenant_a: Tenant, alice: Client
) -> None:
    with tenant_context(tenant_a):
        make_document("Leave policy", LEAVE_POLICY)
        make_document("Expenses", EXPENSES)

    response = alice.get("/api/kb/search/", {"q": "doctor's note sick leave", "k": "2"})

    assert response.status_code == 200
    body = response.json()
    assert body["query"] == "doctor's note sick leave"
    assert len(body["results"]) == 2
    best = body["results"][0]
    assert best["document_title"] == "Leave policy"
    assert best["heading_path"] == ["Leave policy", "Sick leave"]
    assert {"vector_score", "text_score", "fused_score", "text"} <= best.keys()
    assert isinstance(body["weak"], bool)


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({}, "q must not be empty"),
        ({"q": "   "}, "q must not be empty"),
        ({"q": "x" * 1001}, "q must be at most 1000 characters"),
        ({"q": "leave", "k": "many"}, "k must be an integer between 1 and 50"),
        ({"q": "leave", "k": "0"}, "k must be between 1 and 50"),
        ({"q": "leave", "k": "51"}, "k must be between 1 and 50"),
    ],
)
def test_a_bad_q_or_k_gets_400_json_naming_the_problem(
    alice: Client, params: dict[str, str], error: str
) -> None:
    response = alice.get("/api/kb/search/", params)

    assert response.status_code == 400
    assert response.json() == {"error": {"code": "bad_request", "message": error}}


def test_a_bearer_token_is_accepted_as_openapi_promises(tenant_a: Tenant) -> None:
    user = make_user(tenant_a, "robot")
    with tenant_context(tenant_a):
        make_document("Leave policy", LEAVE_POLICY)
        _, token = api_token_create(user=user, name="search")
    client = Client(HTTP_HOST="alpha.localhost", HTTP_AUTHORIZATION=f"Bearer {token}")

    response = client.get("/api/kb/search/", {"q": "sick leave"})

    assert response.status_code == 200
    assert response.json()["results"][0]["document_title"] == "Leave policy"


def test_a_nul_in_q_is_a_400_invalid_text(alice: Client) -> None:
    response = alice.get("/api/kb/search/", {"q": "leave\x00"})

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_text"


def test_a_user_of_tenant_b_never_sees_tenant_a_chunks(
    tenant_a: Tenant, tenant_b: Tenant, client_b: Client
) -> None:
    with tenant_context(tenant_a):
        make_document("Leave policy", LEAVE_POLICY)
    with tenant_context(tenant_b):
        make_document("Expenses", EXPENSES)
    make_user(tenant_b, "bob")
    assert http_login(client_b, "bob")

    response = client_b.get("/api/kb/search/", {"q": "sick leave doctor annual", "k": "50"})

    assert {hit["document_title"] for hit in response.json()["results"]} == {"Expenses"}


def test_a_session_from_tenant_a_is_anonymous_on_tenant_b(
    tenant_a: Tenant, tenant_b: Tenant, alice: Client
) -> None:
    session_cookie = alice.cookies["sessionid"].value
    intruder = Client(HTTP_HOST="beta.localhost")
    intruder.cookies["sessionid"] = session_cookie

    response = intruder.get("/api/kb/search/", {"q": "leave"})

    assert response.status_code == 401


def test_a_token_of_tenant_a_is_refused_on_tenant_b_in_the_common_shape(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    user = make_user(tenant_a, "robot")
    with tenant_context(tenant_a):
        make_document("Leave policy", LEAVE_POLICY)
        _, token = api_token_create(user=user, name="search")
    on_b = Client(HTTP_HOST="beta.localhost", HTTP_AUTHORIZATION=f"Bearer {token}")

    response = on_b.get("/api/kb/search/", {"q": "sick leave"})

    assert response.status_code == 401
    assert response.json() == {
        "error": {"code": "unauthenticated", "message": "authentication required"}
    }


def test_a_post_is_refused_with_405_in_the_common_shape(alice: Client) -> None:
    response = alice.post("/api/kb/search/", {"q": "leave"})

    assert response.status_code == 405 and response["Allow"] == "GET"
    assert response.json()["error"]["code"] == "method_not_allowed"
