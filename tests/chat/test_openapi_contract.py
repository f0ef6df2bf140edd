"""The OpenAPI document tells the truth (docs/api.md).

It is valid OpenAPI 3.1; every ``/api/`` route is in it; every operation in it is called for
real (with a bearer token, on real PostgreSQL and Redis) and its answer is validated against
the schema documented for the status it answered; and the documented errors that are cheap to
provoke (401 without credentials, 404 for an unknown id, 400 for bad input) answer the common
error shape.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django_tenants.utils import tenant_context
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate as validate_openapi_document

from actions.models import Contact
from chat.models import Conversation, Message
from chat.openapi import openapi_document
from chat.pending_actions import pending_action_decide, pending_action_propose
from chat.tokens import api_token_create
from knowledge.embedder import use_embedder
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF, TENANT_ADMIN
from tests.knowledge.conftest import FakeEmbedder
from tests.knowledge.factories import LEAVE_POLICY, make_document
from tests.tenants.factories import make_user

DOCUMENT = openapi_document()
OPERATIONS = sorted(
    (method, path) for path, operations in DOCUMENT["paths"].items() for method in operations
)


@dataclass(frozen=True)
class World:
    """Rows the calls need in tenant A: the caller owns a conversation and one pending action,
    and may decide two more that someone else proposed."""

    token: str
    conversation: str
    to_approve: str
    to_reject: str
    to_withdraw: str
    # The caller's own requests that another approver edited: theirs to confirm or decline.
    to_confirm: str
    to_decline: str
    # The caller's second conversation, with no pending action: one that may be deleted.
    to_delete: str
    # A tenant admin's token: the audit export is theirs alone.
    admin_token: str


@pytest.fixture
def world(tenant_a: Tenant) -> Iterator[World]:
    caller = make_user(tenant_a, "april", role=APPROVER)
    staff = make_user(tenant_a, "sam", role=STAFF)
    with use_embedder(FakeEmbedder()):  # for the documents and for search queries
        with tenant_context(tenant_a):
            make_document("Leave policy", LEAVE_POLICY)
            Contact.objects.create(name="Kim", phone="+12025550101")
            own = Conversation.objects.create(user=caller, title="Leave")
            Message.objects.create(conversation=own, role=Message.Role.USER, content="Hello")
            theirs = Conversation.objects.create(user=staff)
            actions = [
                pending_action_propose(
                    conversation=conversation,
                    tool_call_id=f"call-{n}",
                    tool="send_sms",
                    arguments={"to": ["Kim"], "body": "hello"},
                    requested_by_id=conversation.user_id,
                )
                for n, conversation in enumerate((theirs, theirs, own))
            ]
            editor = make_user(tenant_a, "abe", role=APPROVER)
            edited = [
                pending_action_decide(
                    action_id=pending_action_propose(
                        conversation=Conversation.objects.create(user=caller),
                        tool_call_id="call-edited",
                        tool="send_sms",
                        arguments={"to": ["Kim"], "body": "hello"},
                        requested_by_id=caller.pk,
                    ).id,
                    user=editor,
                    decision="approve",
                    arguments={"to": ["Kim"], "body": "hello again"},
                )
                for _ in range(2)
            ]
            spare = Conversation.objects.create(user=caller, title="Sick leave")
            _, token = api_token_create(user=caller, name="contract")
            _, admin_token = api_token_create(
                user=make_user(tenant_a, "ada", role=TENANT_ADMIN), name="contract"
            )
        yield World(
            token=token,
            conversation=str(own.uuid),
            to_approve=str(actions[0].id),
            to_reject=str(actions[1].id),
            to_withdraw=str(actions[2].id),
            to_confirm=str(edited[0].id),
            to_decline=str(edited[1].id),
            to_delete=str(spare.uuid),
            admin_token=admin_token,
        )


def _happy_call(world: World, method: str, path: str) -> tuple[str, dict[str, Any] | None]:
    """The URL (path parameters filled, query added) and JSON body of a call that succeeds."""
    calls: dict[tuple[str, str], tuple[str, dict[str, Any] | None]] = {
        ("post", "/api/conversations/"): ("/api/conversations/", {"text": "Hello"}),
        ("get", "/api/conversations/{conversation}/"): (
            f"/api/conversations/{world.conversation}/",
            None,
        ),
        ("patch", "/api/conversations/{conversation}/"): (
            f"/api/conversations/{world.conversation}/",
            {"title": "Annual leave"},
        ),
        ("delete", "/api/conversations/{conversation}/"): (
            f"/api/conversations/{world.to_delete}/",
            None,
        ),
        ("post", "/api/conversations/{conversation}/messages/"): (
            f"/api/conversations/{world.conversation}/messages/",
            {"text": "And sick leave?"},
        ),
        ("get", "/api/conversations/{conversation}/events/"): (
            f"/api/conversations/{world.conversation}/events/?after=0",
            None,
        ),
        ("post", "/api/conversations/{conversation}/cancel/"): (
            f"/api/conversations/{world.conversation}/cancel/",
            None,
        ),
        ("get", "/api/actions/"): ("/api/actions/?status=pending", None),
        ("post", "/api/actions/{action}/approve"): (
            f"/api/actions/{world.to_approve}/approve",
            {"note": "fine"},
        ),
        ("post", "/api/actions/{action}/reject"): (f"/api/actions/{world.to_reject}/reject", {}),
        ("post", "/api/actions/{action}/withdraw"): (
            f"/api/actions/{world.to_withdraw}/withdraw",
            {"note": "never mind"},
        ),
        ("post", "/api/actions/{action}/confirm"): (
            f"/api/actions/{world.to_confirm}/confirm",
            {"note": "yes, that text"},
        ),
        ("post", "/api/actions/{action}/decline"): (
            f"/api/actions/{world.to_decline}/decline",
            {},
        ),
        ("post", "/api/actions/{action}/snooze"): (
            f"/api/actions/{world.to_approve}/snooze",
            {"until": "1h"},
        ),
        ("delete", "/api/actions/{action}/snooze"): (
            f"/api/actions/{world.to_approve}/snooze",
            None,
        ),
        ("post", "/api/actions/decide"): (
            "/api/actions/decide",
            {"decision": "reject", "actions": [world.to_reject, str(uuid.uuid4())]},
        ),
        ("get", "/api/kb/search/"): ("/api/kb/search/?q=sick+leave&k=3", None),
        ("get", "/api/audit/export"): ("/api/audit/export?from=2026-01-01&format=csv", None),
    }
    assert sorted(calls) == OPERATIONS, "give every documented operation a call here"
    return calls[(method, path)]


def _token(world: World, path: str) -> str:
    """The caller's token; a tenant admin's for the audit export."""
    return world.admin_token if path == "/api/audit/export" else world.token


def _client(token: str | None = None) -> Client:
    if token is None:
        return Client(HTTP_HOST="alpha.localhost")
    return Client(HTTP_HOST="alpha.localhost", HTTP_AUTHORIZATION=f"Bearer {token}")


def _call(client: Client, method: str, url: str, body: Any) -> Any:
    if method == "get":
        return client.get(url)
    if method == "delete":
        return client.delete(url)
    if method == "patch":
        return client.patch(url, body, content_type="application/json")
    if body is None:
        return client.post(url)
    return client.post(url, body, content_type="application/json")


def _assert_documented(response: Any, method: str, path: str) -> None:
    """The status is documented for the operation, and the body matches its schema."""
    responses = DOCUMENT["paths"][path][method]["responses"]
    status = str(response.status_code)
    assert status in responses, f"{method.upper()} {path} answered undocumented {status}"
    media_type = response["Content-Type"].split(";")[0]
    content = responses[status].get("content", {})
    assert media_type in content, f"{method.upper()} {path} {status} answered {media_type}"
    schema = content[media_type].get("schema")
    if schema is None:  # the event stream: its frames are docs/protocol.md's
        response.close()
        return
    validator = OAS31Validator(
        {**schema, "components": DOCUMENT["components"]},
        format_checker=OAS31Validator.FORMAT_CHECKER,
    )
    errors = [
        f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(response.json())
    ]
    assert errors == [], f"{method.upper()} {path} {status} does not match its schema"


def test_the_document_is_valid_openapi_3_1() -> None:
    validate_openapi_document(DOCUMENT)


def _api_routes(patterns: list[Any], prefix: str = "") -> Iterator[str]:
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _api_routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern) and route.startswith("api/"):
            yield "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)


def test_every_api_route_of_a_tenant_host_is_documented() -> None:
    routes = set(_api_routes(get_resolver(settings.ROOT_URLCONF).url_patterns))

    assert routes - {"/api/openapi.json"} == set(DOCUMENT["paths"])


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_each_operation_answers_what_the_document_says(
    world: World, method: str, path: str
) -> None:
    url, body = _happy_call(world, method, path)

    response = _call(_client(_token(world, path)), method, url, body)

    assert response.status_code < 300, response.content
    _assert_documented(response, method, path)


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_each_operation_answers_401_in_the_documented_shape_without_credentials(
    world: World, method: str, path: str
) -> None:
    url, body = _happy_call(world, method, path)

    response = _call(_client(), method, url, body)

    assert response.status_code == 401
    _assert_documented(response, method, path)


@pytest.mark.parametrize(
    ("method", "path"),
    [op for op in OPERATIONS if "404" in DOCUMENT["paths"][op[1]][op[0]]["responses"]],
)
def test_each_operation_answers_404_in_the_documented_shape_for_an_unknown_id(
    world: World, method: str, path: str
) -> None:
    url, body = _happy_call(world, method, path)
    known_ids = (world.conversation, world.to_delete, world.to_approve, world.to_reject)
    for known in (*known_ids, world.to_withdraw, world.to_confirm, world.to_decline):
        url = url.replace(known, str(uuid.uuid4()))

    response = _call(_client(_token(world, path)), method, url, body)

    assert response.status_code == 404
    _assert_documented(response, method, path)


_BAD_INPUT = {
    ("post", "/api/conversations/"): ("/api/conversations/", ["not", "an", "object"]),
    ("patch", "/api/conversations/{conversation}/"): (
        "/api/conversations/{conversation}/",
        {"title": "   "},
    ),
    ("post", "/api/conversations/{conversation}/messages/"): (
        "/api/conversations/{conversation}/messages/",
        {"text": 5},
    ),
    ("get", "/api/conversations/{conversation}/events/"): (
        "/api/conversations/{conversation}/events/?after=-1",
        None,
    ),
    ("get", "/api/actions/"): ("/api/actions/?status=maybe", None),
    ("post", "/api/actions/{action}/approve"): (
        "/api/actions/{action}/approve",
        {"arguments": "all of them"},
    ),
    ("post", "/api/actions/{action}/reject"): ("/api/actions/{action}/reject", {"note": 7}),
    ("post", "/api/actions/{action}/withdraw"): ("/api/actions/{action}/withdraw", {"note": []}),
    ("post", "/api/actions/{action}/confirm"): ("/api/actions/{action}/confirm", {"note": 1}),
    ("post", "/api/actions/{action}/decline"): ("/api/actions/{action}/decline", {"note": {}}),
    ("post", "/api/actions/{action}/snooze"): ("/api/actions/{action}/snooze", {"until": "soon"}),
    ("post", "/api/actions/decide"): (
        "/api/actions/decide",
        {"decision": "approve", "actions": ["not-an-id"]},
    ),
    ("get", "/api/kb/search/"): ("/api/kb/search/?q=leave&k=0", None),
    ("get", "/api/audit/export"): ("/api/audit/export?to=yesterday", None),
}


def test_every_operation_documenting_400_has_a_bad_input_case_here() -> None:
    documented = {op for op in OPERATIONS if "400" in DOCUMENT["paths"][op[1]][op[0]]["responses"]}

    assert documented == set(_BAD_INPUT)


@pytest.mark.parametrize(("method", "path"), sorted(_BAD_INPUT))
def test_each_operation_answers_400_in_the_documented_shape_for_bad_input(
    world: World, method: str, path: str
) -> None:
    template, body = _BAD_INPUT[(method, path)]
    url = template.replace("{conversation}", world.conversation).replace(
        "{action}", world.to_withdraw if path.endswith("withdraw") else world.to_approve
    )

    response = _call(_client(_token(world, path)), method, url, body)

    assert response.status_code == 400
    _assert_documented(response, method, path)
