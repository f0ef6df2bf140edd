"""Undoing a snooze (``DELETE /api/actions/<id>/snooze``) and the inbox's "Snoozed" list: a
snoozed request is one click from coming back, for the approver who snoozed it only."""

from __future__ import annotations

import json

from django.contrib.auth.models import User
from django.test import Client
from django_tenants.utils import tenant_context

from actions.models import Contact
from chat.models import ActionEvent, ActionSnooze, Conversation, PendingAction
from chat.pending_actions import pending_action_propose
from chat.selectors import inbox_actions, inbox_count, snoozed_actions
from tenants.models import Tenant
from tenants.roles import APPROVER
from tests.chat.doors import token_client
from tests.tenants.factories import make_user


def _pending(tenant: Tenant, requester: User) -> PendingAction:
    with tenant_context(tenant):
        Contact.objects.get_or_create(name="Emma Wilson", phone="+12025550111")
        return pending_action_propose(
            conversation=Conversation.objects.create(user=requester),
            tool_call_id="call_1",
            tool="send_sms",
            arguments={"to": ["Emma Wilson"], "body": "See you at 3"},
            requested_by_id=requester.pk,
        )


def _snooze(api: Client, action: PendingAction) -> None:
    path = f"/api/actions/{action.pk}/snooze"
    response = api.post(path, json.dumps({"until": "1h"}), content_type="application/json")
    assert response.status_code == 200


def test_an_undone_snooze_puts_the_request_back_in_that_approvers_inbox_at_once(
    tenant_a: Tenant,
) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))
    april = make_user(tenant_a, "april", role=APPROVER)
    api = token_client(tenant_a, april)
    _snooze(api, action)
    with tenant_context(tenant_a):
        assert [a.pk for a in snoozed_actions(viewer=april, tools=["send_sms"])] == [action.pk]

    response = api.delete(f"/api/actions/{action.pk}/snooze")

    assert response.status_code == 200
    assert response.json()["snoozed_until"] is None
    assert response.json()["action"]["status"] == "pending"
    with tenant_context(tenant_a):
        assert [a.pk for a in inbox_actions(tools=["send_sms"], viewer=april)] == [action.pk]
        assert inbox_count(tools=["send_sms"], viewer=april) == 1
        assert list(snoozed_actions(viewer=april, tools=["send_sms"])) == []
        assert not ActionSnooze.objects.exists()
        # The audit trail says the snooze ended early, and who ended it.
        events = ActionEvent.objects.filter(kind=ActionEvent.Kind.SNOOZED).order_by("at")
        assert [(e.actor_id, e.data["until"]) for e in events][-1] == (april.pk, None)


def test_the_snoozed_list_holds_only_the_viewers_own_snoozes(tenant_a: Tenant) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))
    april = make_user(tenant_a, "april", role=APPROVER)
    avery = make_user(tenant_a, "avery", role=APPROVER)

    _snooze(token_client(tenant_a, april), action)

    with tenant_context(tenant_a):
        assert list(snoozed_actions(viewer=avery, tools=["send_sms"])) == []
        assert len(snoozed_actions(viewer=april, tools=["send_sms"])) == 1


def test_undoing_twice_changes_nothing_the_second_time(tenant_a: Tenant) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))
    api = token_client(tenant_a, make_user(tenant_a, "april", role=APPROVER))
    _snooze(api, action)

    first = api.delete(f"/api/actions/{action.pk}/snooze")
    second = api.delete(f"/api/actions/{action.pk}/snooze")

    assert first.status_code == second.status_code == 200
    with tenant_context(tenant_a):
        assert ActionEvent.objects.filter(kind=ActionEvent.Kind.SNOOZED).count() == 2


def test_someone_who_may_not_decide_the_request_cannot_undo_a_snooze(tenant_a: Tenant) -> None:
    staff = make_user(tenant_a, "sam")
    action = _pending(tenant_a, staff)

    response = token_client(tenant_a, staff).delete(f"/api/actions/{action.pk}/snooze")

    assert response.status_code == 403 and response.json()["error"]["code"] == "forbidden"


def test_a_snooze_of_tenant_a_cannot_be_undone_from_tenant_b(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))
    _snooze(token_client(tenant_a, make_user(tenant_a, "april", role=APPROVER)), action)
    outsider = make_user(tenant_b, "april", role=APPROVER)

    response = token_client(tenant_b, outsider).delete(f"/api/actions/{action.pk}/snooze")

    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    with tenant_context(tenant_a):
        assert ActionSnooze.objects.count() == 1
