"""The requester withdraws a pending action over HTTP or WebSocket; nobody else can."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django_tenants.utils import tenant_context
from langchain_core.messages import AIMessage

from actions.models import Contact
from chat.agent.nodes import NOT_RUN_REPLIES
from chat.models import ActionEvent, Conversation, PendingAction
from chat.pending_actions import pending_action_propose
from tenants.models import Tenant
from tenants.roles import APPROVER
from tests.chat.conftest import TurnRunner
from tests.chat.doors import frames_until_pong, token_client, wait_for_reply
from tests.chat.scripted import ScriptedChatModel, tool_call
from tests.tenants.factories import make_user


def _pending(tenant: Tenant, requester: User) -> PendingAction:
    with tenant_context(tenant):
        Contact.objects.create(name="Emma Wilson", phone="+12025550111")
        return pending_action_propose(
            conversation=Conversation.objects.create(user=requester),
            tool_call_id="call_1",
            tool="send_sms",
            arguments={"to": ["Emma Wilson"], "body": "Class moved to 3pm"},
            requested_by_id=requester.pk,
        )


def _withdraw(api: Client, action: PendingAction, body: Any = None) -> Any:
    return api.post(
        f"/api/actions/{action.id}/withdraw",
        json.dumps(body if body is not None else {}),
        content_type="application/json",
    )


def _status(tenant: Tenant, action: PendingAction) -> str:
    with tenant_context(tenant):
        return PendingAction.objects.get(pk=action.id).status


def test_the_requester_withdraws_over_http_and_it_is_audited(tenant_a: Tenant) -> None:
    staff = make_user(tenant_a, "sam")
    action = _pending(tenant_a, staff)

    response = _withdraw(token_client(tenant_a, staff), action, {"note": "wrong class"})

    assert response.status_code == 200
    assert response.json()["action"]["status"] == "withdrawn"
    with tenant_context(tenant_a):
        event = ActionEvent.objects.get(action_id=action.id, kind=ActionEvent.Kind.WITHDRAWN)
        assert event.actor_id == staff.pk and event.data["note"] == "wrong class"


def test_an_approver_cannot_withdraw_someone_elses_action(tenant_a: Tenant) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))
    approver = make_user(tenant_a, "april", role=APPROVER)

    response = _withdraw(token_client(tenant_a, approver), action)

    assert response.status_code == 403 and response.json()["error"]["code"] == "forbidden"
    assert _status(tenant_a, action) == PendingAction.Status.PENDING


def test_approving_after_a_withdrawal_is_refused(tenant_a: Tenant) -> None:
    staff = make_user(tenant_a, "sam")
    action = _pending(tenant_a, staff)
    _withdraw(token_client(tenant_a, staff), action)

    approve = token_client(tenant_a, make_user(tenant_a, "april", role=APPROVER)).post(
        f"/api/actions/{action.id}/approve", {}, content_type="application/json"
    )

    assert approve.status_code == 409
    assert approve.json()["error"]["code"] == "invalid_state"
    assert "already withdrawn" in approve.json()["error"]["message"]
    assert _status(tenant_a, action) == PendingAction.Status.WITHDRAWN


def test_withdrawing_twice_is_refused_as_invalid_state(tenant_a: Tenant) -> None:
    staff = make_user(tenant_a, "sam")
    action = _pending(tenant_a, staff)
    api = token_client(tenant_a, staff)
    _withdraw(api, action)

    again = _withdraw(api, action)

    assert again.status_code == 409 and again.json()["error"]["code"] == "invalid_state"


def test_an_action_of_tenant_a_is_not_found_from_tenant_b(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))
    outsider = make_user(tenant_b, "sam")  # same name, other organisation

    response = _withdraw(token_client(tenant_b, outsider), action)

    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert _status(tenant_a, action) == PendingAction.Status.PENDING


@pytest.mark.parametrize(
    ("body", "code"),
    [('{"note": 12}', 400), ("not json", 400), ('["a list"]', 400)],
)
def test_bad_withdraw_input_gets_a_json_error_and_changes_nothing(
    tenant_a: Tenant, body: str, code: int
) -> None:
    staff = make_user(tenant_a, "sam")
    action = _pending(tenant_a, staff)

    response = token_client(tenant_a, staff).post(
        f"/api/actions/{action.id}/withdraw", body, content_type="application/json"
    )

    assert response.status_code == code and response.json()["error"]["code"] == "bad_request"
    assert _status(tenant_a, action) == PendingAction.Status.PENDING


def test_withdraw_answers_get_with_method_not_allowed(tenant_a: Tenant) -> None:
    staff = make_user(tenant_a, "sam")
    action = _pending(tenant_a, staff)

    assert (
        token_client(tenant_a, staff).get(f"/api/actions/{action.id}/withdraw").status_code == 405
    )


# -- WebSocket ------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_bad_withdraw_frame_gets_an_error_and_the_next_one_withdraws(
    tenant_a: Tenant, celery_worker_thread: None
) -> None:
    staff = make_user(tenant_a, "sam")
    action = _pending(tenant_a, staff)

    received = frames_until_pong(
        tenant_a,
        staff,
        [
            {"type": "action.withdraw", "action": "not-a-uuid"},
            {"type": "action.withdraw", "action": str(action.id), "note": ["not", "text"]},
            {"type": "action.withdraw", "action": str(action.id)},
        ],
    )

    assert [(f["type"], f["code"]) for f in received] == [
        ("error", "bad_frame"),
        ("error", "bad_frame"),
    ]
    assert _status(tenant_a, action) == PendingAction.Status.WITHDRAWN


@pytest.mark.django_db(transaction=True)
def test_a_withdraw_frame_for_another_tenants_action_is_not_found(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))

    received = frames_until_pong(
        tenant_b,
        make_user(tenant_b, "sam"),
        [{"type": "action.withdraw", "action": str(action.id)}],
    )

    assert [(f["type"], f["code"]) for f in received] == [("error", "not_found")]
    assert _status(tenant_a, action) == PendingAction.Status.PENDING


# -- the turn waiting on the action is closed out -------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_withdrawing_over_http_closes_out_the_waiting_turn_with_a_reply(
    ask: TurnRunner, tenant_a: Tenant, celery_worker_thread: None
) -> None:
    Contact.objects.create(name="Emma Wilson", phone="+12025550111")
    sms = {"to": ["Emma Wilson"], "body": "Class moved to 3pm"}
    turn = ask(
        "Text Emma that class moved to 3pm",
        model=ScriptedChatModel(replies=[tool_call("send_sms", **sms), AIMessage("unused")]),
    )
    action = PendingAction.objects.get(conversation=turn.conversation)
    staff = turn.conversation.user

    assert _withdraw(token_client(tenant_a, staff), action).status_code == 200

    reply = wait_for_reply(tenant_a, run_id=action.id)
    assert reply.content == NOT_RUN_REPLIES["withdrawn"]
