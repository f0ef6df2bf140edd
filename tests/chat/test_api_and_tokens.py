"""API tokens, the HTTP API's edges, and permissions re-checked on every WebSocket frame."""

from __future__ import annotations

import json
import uuid
from io import StringIO
from typing import Any

import kombu.exceptions
import pytest
import redis
from asgiref.sync import async_to_sync
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command
from django.test import Client
from django_tenants.utils import tenant_context

from chat.locks import ConversationLock
from chat.models import ApiToken, Conversation, PendingAction
from chat.pending_actions import pending_action_propose
from chat.services import realtime
from chat.services.expiry import stranded_action_ids
from chat.tokens import api_token_create, api_token_revoke, user_for_token
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF
from tests.chat.doors import bearer_socket
from tests.tenants.factories import make_user


def _bearer(tenant: Tenant, token: str) -> Client:
    return Client(
        HTTP_HOST=tenant.get_primary_domain().domain, HTTP_AUTHORIZATION=f"Bearer {token}"
    )


def test_api_token_create_prints_a_token_once_and_stores_only_its_digest(tenant_a: Tenant) -> None:
    make_user(tenant_a, "sam")
    out = StringIO()

    call_command(
        "api_token_create",
        tenant="alpha",
        user="sam",
        name="reports",
        stdout=out,
        stderr=StringIO(),
    )

    token = out.getvalue().strip()
    with tenant_context(tenant_a):
        row = ApiToken.objects.get()
        assert token.startswith("cs_") and token not in (row.digest, row.prefix)
        assert user_for_token(token) is not None
        assert ApiToken.objects.get().last_used_at is not None


def test_api_token_create_refuses_an_unknown_user_or_tenant(tenant_a: Tenant) -> None:
    with pytest.raises(CommandError, match="no active user 'ghost'"):
        call_command("api_token_create", tenant="alpha", user="ghost")
    with pytest.raises(CommandError, match="no tenant 'nowhere'"):
        call_command("api_token_create", tenant="nowhere", user="sam")


def test_a_revoked_token_is_refused(tenant_a: Tenant) -> None:
    user = make_user(tenant_a, "sam")
    with tenant_context(tenant_a):
        row, token = api_token_create(user=user, name="x")
        api_token_revoke(token=row)

    assert _bearer(tenant_a, token).get("/api/actions/").status_code == 401


def test_a_token_of_tenant_a_is_refused_on_tenant_b(tenant_a: Tenant, tenant_b: Tenant) -> None:
    user = make_user(tenant_a, "sam")
    with tenant_context(tenant_a):
        _, token = api_token_create(user=user, name="x")

    assert _bearer(tenant_a, token).get("/api/actions/").status_code == 200
    assert _bearer(tenant_b, token).get("/api/actions/").status_code == 401


def test_the_api_answers_bad_input_with_json_errors(tenant_a: Tenant) -> None:
    user = make_user(tenant_a, "sam")
    with tenant_context(tenant_a):
        _, token = api_token_create(user=user, name="x")
    api = _bearer(tenant_a, token)

    not_json = api.post("/api/conversations/", "{oops", content_type="application/json")
    no_text = api.post("/api/conversations/", {"text": 5}, content_type="application/json")
    empty = api.post("/api/conversations/", {"text": "   "}, content_type="application/json")
    too_long = api.post(
        "/api/conversations/", {"text": "x" * 4001}, content_type="application/json"
    )
    bad_status = api.get("/api/actions/?status=maybe")
    unknown = api.get(f"/api/conversations/{uuid.uuid4()}/")

    assert [r.status_code for r in (not_json, no_text, empty, too_long, bad_status, unknown)] == [
        400,
        400,
        400,
        400,
        400,
        404,
    ]
    assert not_json.json()["error"]["code"] == "bad_request"
    assert "longer than 4000" in too_long.json()["error"]["message"]


def test_a_session_post_without_csrf_is_refused(tenant_a: Tenant) -> None:
    from tests.tenants.factories import http_login

    make_user(tenant_a, "sam")
    client = Client(HTTP_HOST="alpha.localhost", enforce_csrf_checks=True)
    client.post("/login/", {"username": "sam", "password": "correct-horse-battery"})
    # (the login form itself needs a token: log in without the check, then enforce it)
    client = Client(HTTP_HOST="alpha.localhost")
    http_login(client, "sam")
    client.handler.enforce_csrf_checks = True

    response = client.post("/api/conversations/", {"text": "hi"}, content_type="application/json")

    assert response.status_code == 403 and response.json()["error"]["code"] == "csrf"


def _pending_action(tenant: Tenant) -> PendingAction:
    staff = make_user(tenant, "sam", role=STAFF)
    with tenant_context(tenant):
        from actions.models import Contact

        Contact.objects.create(name="Kim", phone="+12025550101")
        conversation = Conversation.objects.create(user=staff)
        return pending_action_propose(
            conversation=conversation,
            tool_call_id="c1",
            tool="send_sms",
            arguments={"to": ["Kim"], "body": "hello"},
            requested_by_id=staff.pk,
        )


def _approver_token(tenant: Tenant) -> str:
    """An API token of a new approver of ``tenant``."""
    approver = make_user(tenant, "april", role=APPROVER)
    with tenant_context(tenant):
        _, token = api_token_create(user=approver, name="x")
    return token


def test_an_http_approve_with_empty_arguments_approves_the_proposal_unedited(
    tenant_a: Tenant,
) -> None:
    action = _pending_action(tenant_a)
    approver = make_user(tenant_a, "april", role=APPROVER)
    with tenant_context(tenant_a):
        _, token = api_token_create(user=approver, name="x")

    response = _bearer(tenant_a, token).post(
        f"/api/actions/{action.id}/approve", {"arguments": {}}, content_type="application/json"
    )

    assert response.status_code == 200
    decided = response.json()["action"]
    assert decided["status"] == "approved" and decided["arguments"] == action.arguments


def test_an_approve_while_redis_restarts_is_a_503_to_retry_and_leaves_the_action_pending(
    tenant_a: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    action = _pending_action(tenant_a)
    token = _approver_token(tenant_a)

    def refused(self: ConversationLock) -> bool:
        raise redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(ConversationLock, "acquire", refused)  # the decision reserves the turn
    response = _bearer(tenant_a, token).post(
        f"/api/actions/{action.id}/approve", {}, content_type="application/json"
    )

    assert response.status_code == 503
    assert response.json()["error"]["code"] == "unavailable"
    assert response["Retry-After"] == "5"
    action.refresh_from_db()
    assert action.status == PendingAction.Status.PENDING  # nothing half-decided


@pytest.mark.django_db(transaction=True)
def test_an_approve_whose_resume_cannot_be_queued_stands_for_the_sweep_to_resume(
    tenant_a: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    action = _pending_action(tenant_a)
    token = _approver_token(tenant_a)

    def broker_away(action_id: object) -> None:
        raise kombu.exceptions.OperationalError("Error 111 connecting to 127.0.0.1:6379.")

    monkeypatch.setattr(realtime, "resume_queue", broker_away)
    response = _bearer(tenant_a, token).post(
        f"/api/actions/{action.id}/approve", {}, content_type="application/json"
    )

    assert response.status_code == 200  # the decision was taken: it is not to be repeated
    with tenant_context(tenant_a):
        action.refresh_from_db()
        assert action.status == PendingAction.Status.APPROVED
        # what the stranded-resume sweep picks up once the action has waited long enough
        assert action.pk in stranded_action_ids(older_than_seconds=0)


@pytest.mark.django_db(transaction=True)
def test_an_idempotency_key_makes_a_repeated_approve_return_the_first_answer(
    tenant_a: Tenant, celery_worker_thread: None
) -> None:
    action = _pending_action(tenant_a)
    approver = make_user(tenant_a, "april", role=APPROVER)
    with tenant_context(tenant_a):
        _, token = api_token_create(user=approver, name="x")
    api = _bearer(tenant_a, token)

    first = api.post(
        f"/api/actions/{action.id}/approve",
        {},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="k-1",
    )
    again = api.post(
        f"/api/actions/{action.id}/approve",
        {},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="k-1",
    )
    other_key = api.post(
        f"/api/actions/{action.id}/approve",
        {},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="k-2",
    )

    assert first.status_code == again.status_code == 200
    assert first.json() == again.json()
    assert other_key.status_code == 409


@pytest.mark.django_db(transaction=True)
def test_an_approver_removed_mid_connection_can_no_longer_approve(tenant_a: Tenant) -> None:
    action = _pending_action(tenant_a)
    approver = make_user(tenant_a, "april", role=APPROVER)
    with tenant_context(tenant_a):
        _, token = api_token_create(user=approver, name="x")

    host = tenant_a.get_primary_domain().domain

    async def scenario() -> dict[str, Any]:
        socket = bearer_socket(host, token)
        connected, _ = await socket.connect()
        assert connected
        await _remove_from_approvers(approver.pk)
        await socket.send_to(
            text_data=json.dumps(
                {"type": "action.decide", "action": str(action.id), "decision": "approve"}
            )
        )
        reply = json.loads(await socket.receive_from(timeout=10))
        await socket.disconnect()
        return dict(reply)

    reply = async_to_sync(scenario)()

    assert reply["type"] == "error" and reply["code"] == "forbidden"
    with tenant_context(tenant_a):
        assert PendingAction.objects.get(pk=action.id).status == PendingAction.Status.PENDING


async def _remove_from_approvers(user_id: int) -> None:
    from channels.db import database_sync_to_async

    @database_sync_to_async
    def remove() -> None:
        with tenant_context(Tenant.objects.get(schema_name="alpha")):
            Group.objects.get(name=APPROVER).user_set.remove(user_id)

    await remove()


def test_the_openapi_document_is_served_and_its_docs_copy_is_current(tenant_a: Tenant) -> None:
    from pathlib import Path

    from chat.openapi import openapi_document

    served = Client(HTTP_HOST="alpha.localhost").get("/api/openapi.json").json()
    copy = json.loads((Path(__file__).parents[2] / "docs" / "openapi.json").read_text())

    assert served == openapi_document() == copy, "run: manage.py openapi > docs/openapi.json"
    assert "/api/actions/{action}/approve" in served["paths"]
