"""POST /api/actions/decide: several actions approved or rejected in one request, each through
the one decision service, each with its own result (docs/api.md)."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from django_tenants.utils import tenant_context

from actions.models import Contact
from chat.models import ActionEvent, Conversation, PendingAction
from chat.pending_actions import pending_action_propose
from chat.tokens import api_token_create
from tenants.models import Tenant
from tenants.roles import APPROVER
from tests.tenants.factories import make_user


def _pending(tenant: Tenant, requester: User, count: int) -> list[PendingAction]:
    with tenant_context(tenant):
        Contact.objects.get_or_create(name="Emma Wilson", defaults={"phone": "+12025550111"})
        return [
            pending_action_propose(
                conversation=Conversation.objects.create(user=requester),
                tool_call_id=f"call_{n}",
                tool="send_sms",
                arguments={"to": ["Emma Wilson"], "body": f"Reminder {n}"},
                requested_by_id=requester.pk,
            )
            for n in range(count)
        ]


def _api(tenant: Tenant, user: User) -> Client:
    with tenant_context(tenant):
        _, token = api_token_create(user=user, name="tests")
    return Client(
        HTTP_HOST=tenant.get_primary_domain().domain, HTTP_AUTHORIZATION=f"Bearer {token}"
    )


def _decide(api: Client, body: Any) -> Any:
    return api.post("/api/actions/decide", json.dumps(body), content_type="application/json")


def _ids(actions: list[PendingAction]) -> list[str]:
    return [str(a.id) for a in actions]


def _statuses(tenant: Tenant, actions: list[PendingAction]) -> list[str]:
    with tenant_context(tenant):
        found = {
            a.pk: a.status for a in PendingAction.objects.filter(pk__in=[a.pk for a in actions])
        }
    return [found[a.pk] for a in actions]


@pytest.fixture
def staff(tenant_a: Tenant) -> User:
    return make_user(tenant_a, "sam")


@pytest.fixture
def approver(tenant_a: Tenant) -> User:
    return make_user(tenant_a, "april", role=APPROVER)


def test_approving_five_decides_each_once_and_answers_a_result_per_action(
    tenant_a: Tenant, staff: User, approver: User
) -> None:
    actions = _pending(tenant_a, staff, 5)

    response = _decide(_api(tenant_a, approver), {"decision": "approve", "actions": _ids(actions)})

    assert response.status_code == 200
    assert response.json() == {
        "decision": "approve",
        "results": [{"action": i, "ok": True, "status": "approved"} for i in _ids(actions)],
    }
    assert _statuses(tenant_a, actions) == ["approved"] * 5
    with tenant_context(tenant_a):
        approvals = ActionEvent.objects.filter(kind=ActionEvent.Kind.APPROVED)
        assert sorted(str(e.action_id) for e in approvals) == sorted(_ids(actions))
        assert {e.actor_id for e in approvals} == {approver.pk}


def test_an_already_decided_action_is_reported_on_its_own_item_and_the_rest_are_decided(
    tenant_a: Tenant, staff: User, approver: User
) -> None:
    first, second, third = _pending(tenant_a, staff, 3)
    api = _api(tenant_a, approver)
    _decide(api, {"decision": "reject", "actions": [str(second.id)]})

    results = _decide(api, {"decision": "approve", "actions": _ids([first, second, third])})

    assert [r["ok"] for r in results.json()["results"]] == [True, False, True]
    refused = results.json()["results"][1]
    assert refused["error"] == {
        "code": "invalid_state",
        "message": "this action is already rejected",
    }
    assert _statuses(tenant_a, [first, second, third]) == ["approved", "rejected", "approved"]


def test_repeating_a_bulk_approval_decides_nothing_twice(
    tenant_a: Tenant, staff: User, approver: User
) -> None:
    actions = _pending(tenant_a, staff, 2)
    api = _api(tenant_a, approver)
    _decide(api, {"decision": "approve", "actions": _ids(actions)})

    again = _decide(api, {"decision": "approve", "actions": _ids(actions)})

    assert [r["error"]["code"] for r in again.json()["results"]] == ["invalid_state"] * 2
    with tenant_context(tenant_a):
        assert ActionEvent.objects.filter(kind=ActionEvent.Kind.APPROVED).count() == 2


def test_an_expired_action_is_reported_as_expired_and_becomes_expired(
    tenant_a: Tenant, staff: User, approver: User
) -> None:
    fresh, overdue = _pending(tenant_a, staff, 2)
    with tenant_context(tenant_a):
        PendingAction.objects.filter(pk=overdue.pk).update(
            expires_at=timezone.now() - timedelta(minutes=1)
        )

    response = _decide(
        _api(tenant_a, approver), {"decision": "approve", "actions": _ids([fresh, overdue])}
    )

    expired = response.json()["results"][1]
    assert expired["ok"] is False and expired["error"]["code"] == "expired"
    assert _statuses(tenant_a, [fresh, overdue]) == ["approved", "expired"]


def test_staff_without_the_approver_role_are_refused_per_item_and_decide_nothing(
    tenant_a: Tenant, staff: User
) -> None:
    actions = _pending(tenant_a, make_user(tenant_a, "sid"), 2)

    response = _decide(_api(tenant_a, staff), {"decision": "reject", "actions": _ids(actions)})

    assert [r["error"]["code"] for r in response.json()["results"]] == ["forbidden"] * 2
    assert _statuses(tenant_a, actions) == ["pending"] * 2


def test_ids_from_another_tenant_are_not_found_per_item_and_decide_nothing(
    tenant_a: Tenant, tenant_b: Tenant, staff: User, approver: User
) -> None:
    theirs = _pending(tenant_b, make_user(tenant_b, "bob"), 2)
    ours = _pending(tenant_a, staff, 1)

    response = _decide(
        _api(tenant_a, approver), {"decision": "approve", "actions": _ids(theirs + ours)}
    )

    assert [r.get("error", {}).get("code") for r in response.json()["results"]] == [
        "not_found",
        "not_found",
        None,
    ]
    assert _statuses(tenant_b, theirs) == ["pending", "pending"]
    with tenant_context(tenant_b):
        assert not ActionEvent.objects.filter(kind=ActionEvent.Kind.APPROVED).exists()


def test_a_token_of_one_tenant_is_refused_on_another_tenants_host(
    tenant_a: Tenant, tenant_b: Tenant, approver: User
) -> None:
    theirs = _pending(tenant_b, make_user(tenant_b, "bob"), 1)
    with tenant_context(tenant_a):
        _, token = api_token_create(user=approver, name="tests")
    on_b = Client(
        HTTP_HOST=tenant_b.get_primary_domain().domain, HTTP_AUTHORIZATION=f"Bearer {token}"
    )

    response = _decide(on_b, {"decision": "approve", "actions": _ids(theirs)})

    assert response.status_code == 401
    assert _statuses(tenant_b, theirs) == ["pending"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"actions": ["<id>"]}, "'decision' must be approve or reject"),
        ({"decision": "maybe", "actions": ["<id>"]}, "'decision' must be approve or reject"),
        ({"decision": "approve"}, "'actions' must be a non-empty list of action ids"),
        ({"decision": "approve", "actions": []}, "'actions' must be a non-empty list"),
        ({"decision": "approve", "actions": "<id>"}, "'actions' must be a non-empty list"),
        ({"decision": "approve", "actions": ["<id>", 7]}, "'actions': '7' is not an action id"),
        ({"decision": "approve", "actions": ["<id>", "<id>"]}, "names <id> twice"),
        ({"decision": "approve", "actions": ["<id>"] + ["<new>"] * 50}, "lists 51 ids; at most 50"),
        ({"decision": "approve", "actions": ["<id>"], "note": 3}, "'note' must be a string"),
    ],
)
def test_a_bad_request_is_refused_with_the_reason_and_decides_nothing(
    tenant_a: Tenant, staff: User, approver: User, body: dict[str, Any], message: str
) -> None:
    [action] = _pending(tenant_a, staff, 1)
    filled = json.loads(json.dumps(body).replace("<id>", str(action.id)))
    if isinstance(filled.get("actions"), list):
        filled["actions"] = [str(uuid.uuid4()) if i == "<new>" else i for i in filled["actions"]]

    response = _decide(_api(tenant_a, approver), filled)

    assert response.status_code == 400
    assert message.replace("<id>", str(action.id)) in response.json()["error"]["message"]
    assert _statuses(tenant_a, [action]) == ["pending"]
