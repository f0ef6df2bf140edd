"""The requester's view of an approved action: who edited it and what changed, and what became
of each recipient's message (queued → sent or failed with the provider's reason), published as
`action` frames to the conversation and the tenant's approvers only."""

from __future__ import annotations

import json
from typing import Any

from asgiref.sync import async_to_sync
from django.contrib.auth.models import User
from django_tenants.utils import tenant_context

from actions.models import Contact, ContactGroup, OutboundMessage
from chat.events.log import frames_after_async
from chat.events.payloads import action_payload
from chat.models import Conversation, PendingAction
from chat.pending_actions import (
    pending_action_decide,
    pending_action_execute,
    pending_action_propose,
)
from chat.presenters import action_card
from chat.services.deliveries import action_delivery_publish
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF
from tests.actions.conftest import fake_twilio, wait_until  # noqa: F401 - a fixture
from tests.tenants.factories import make_user
from tests.unit.actions.fakes import FakeTwilioServer

SMS = {"to": ["Parents"], "body": "The bus is 10 minutes late"}
INVALID_TO = FakeTwilioServer.error(
    400, 21211, "The 'To' number +12025550101 is not a valid phone number."
)


def _people(tenant: Tenant, prefix: str = "") -> tuple[User, User]:
    return (
        make_user(tenant, f"{prefix}sam", role=STAFF),
        make_user(tenant, f"{prefix}april", role=APPROVER),
    )


def _parents() -> None:
    group = ContactGroup.objects.create(name="Parents")
    for index, name in enumerate(["Kim Minji", "Lee Jun"]):
        contact = Contact.objects.create(name=name, phone=f"+1202555010{index}")
        contact.groups.add(group)


def _propose(staff: User) -> PendingAction:
    return pending_action_propose(
        conversation=Conversation.objects.create(user=staff),
        tool_call_id="call_1",
        tool="send_sms",
        arguments=SMS,
        requested_by_id=staff.pk,
    )


def _events(tenant: Tenant, action: PendingAction) -> list[dict[str, Any]]:
    return [
        json.loads(frame.text)
        for frame in async_to_sync(frames_after_async)(
            schema=tenant.schema_name, conversation_uuid=str(action.conversation.uuid), after=0
        )
    ]


def test_an_edited_approval_shows_the_approver_and_only_the_changed_fields(
    in_tenant_a: Tenant,
) -> None:
    staff, approver = _people(in_tenant_a)
    _parents()
    Contact.objects.create(name="Emma Wilson", phone="+12025550111")
    action = _propose(staff)

    pending_action_decide(
        action_id=action.id,
        user=approver,
        decision="approve",
        arguments={"to": ["Parents", "Emma Wilson"], "body": "The bus is 20 minutes late"},
    )

    action.refresh_from_db()
    for viewer in (staff, approver):
        edit = action_card(action, viewer=viewer).edit
        assert edit is not None
        assert edit.by == approver.get_username()
        assert [(c.label, c.before, c.after, c.added, c.removed) for c in edit.changes] == [
            ("To", None, None, ["Emma Wilson"], []),
            ("Body", "The bus is 10 minutes late", "The bus is 20 minutes late", [], []),
        ]


def test_an_approval_without_an_edit_has_no_edited_marker(in_tenant_a: Tenant) -> None:
    staff, approver = _people(in_tenant_a)
    _parents()
    action = _propose(staff)

    pending_action_decide(action_id=action.id, user=approver, decision="approve", arguments=SMS)

    action.refresh_from_db()
    assert action_card(action, viewer=staff).edit is None
    assert action_payload(action, full=False)["edited"] is None


def test_an_edit_that_normalises_back_to_the_proposal_shows_no_marker(
    in_tenant_a: Tenant,
) -> None:
    staff, approver = _people(in_tenant_a)
    _parents()
    action = _propose(staff)

    pending_action_decide(
        action_id=action.id,
        user=approver,
        decision="approve",
        arguments={"to": [" Parents "], "body": "The bus is 10 minutes late  "},
    )

    action.refresh_from_db()
    assert action_card(action, viewer=staff).edit is None
    assert action_payload(action, full=False)["edited"] is None


def test_the_action_frame_carries_who_edited_and_the_changes(in_tenant_a: Tenant) -> None:
    staff, approver = _people(in_tenant_a)
    _parents()
    action = _propose(staff)

    pending_action_decide(
        action_id=action.id,
        user=approver,
        decision="approve",
        arguments={"to": ["Parents"], "body": "Bus is late"},
    )

    action.refresh_from_db()
    edited = action_payload(action, full=False)["edited"]
    assert edited["by"] == approver.get_username()
    assert edited["changes"] == [
        {
            "field": "body",
            "before": "The bus is 10 minutes late",
            "after": "Bus is late",
            "added": [],
            "removed": [],
        }
    ]


def test_a_pending_message_card_says_it_waits_and_lists_no_deliveries(
    in_tenant_a: Tenant,
) -> None:
    staff, _ = _people(in_tenant_a)
    _parents()
    action = _propose(staff)

    card = action_card(action, viewer=staff)

    assert (card.status_label, card.deliveries, card.edit) == ("Waiting for approval", [], None)


def _approve_and_run(tenant: Tenant, action: PendingAction | None = None) -> PendingAction:
    with tenant_context(tenant):
        if action is None:
            action = _proposed(tenant)
        approver = User.objects.get(username="april")
        pending_action_decide(action_id=action.id, user=approver, decision="approve")
        pending_action_execute(action_id=action.id)
        return PendingAction.objects.select_related("conversation", "requested_by").get(
            pk=action.id
        )


def _proposed(tenant: Tenant) -> PendingAction:
    staff, _ = _people(tenant)
    _parents()
    return _propose(staff)


def _settled(tenant: Tenant, action: PendingAction) -> list[OutboundMessage] | None:
    with tenant_context(tenant):
        messages = list(OutboundMessage.objects.filter(action_id=action.id))
    done = messages and all(m.status in ("sent", "failed") for m in messages)
    return messages if done else None


def _last_frame_shows_all_settled(tenant: Tenant, action: PendingAction) -> dict[str, Any] | None:
    frames = [event for event in _events(tenant, action) if event["type"] == "action"]
    if not frames:
        return None
    statuses = {d["status"] for d in frames[-1]["action"]["deliveries"]}
    return frames[-1] if statuses <= {"sent", "failed"} and statuses else None


def test_each_recipient_is_sent_and_the_card_says_sent_to_all(
    celery_worker_thread: None,
    tenant_a: Tenant,
    fake_twilio: FakeTwilioServer,  # noqa: F811
) -> None:
    action = _approve_and_run(tenant_a)
    wait_until(lambda: _settled(tenant_a, action))

    with tenant_context(tenant_a):
        card = action_card(action, viewer=action.requested_by)
    assert card.status_label == "Sent to 2 of 2"
    assert [(d.name, d.to, d.status_label) for d in card.deliveries] == [
        ("Kim Minji", "+12025550100", "Sent"),
        ("Lee Jun", "+12025550101", "Sent"),
    ]
    assert card.outcome == ""  # not the summary "SMS to 2 recipients: sending …"


def test_delivery_changes_are_published_as_action_frames_with_every_recipient(
    celery_worker_thread: None,
    tenant_a: Tenant,
    fake_twilio: FakeTwilioServer,  # noqa: F811
) -> None:
    action = _approve_and_run(tenant_a)

    frame = wait_until(lambda: _last_frame_shows_all_settled(tenant_a, action))

    assert frame["action"]["id"] == str(action.id)
    assert [(d["contact"], d["status"]) for d in frame["action"]["deliveries"]] == [
        ("Kim Minji", "sent"),
        ("Lee Jun", "sent"),
    ]
    with tenant_context(tenant_a):
        card = action_card(PendingAction.objects.get(pk=action.pk), viewer=action.requested_by)
    assert card.status_label == "Sent to 2 of 2" and not card.partly_failed


def test_a_failing_recipient_shows_failed_with_the_providers_reason(
    celery_worker_thread: None,
    tenant_a: Tenant,
    fake_twilio: FakeTwilioServer,  # noqa: F811
) -> None:
    fake_twilio.fail_for("+12025550101", INVALID_TO)
    action = _approve_and_run(tenant_a)
    wait_until(lambda: _settled(tenant_a, action))

    with tenant_context(tenant_a):
        card = action_card(action, viewer=action.requested_by)
    reason = "Twilio error 21211: The 'To' number +12025550101 is not a valid phone number."
    assert card.status_label == f"Sent to 1 of 2, 1 failed: {reason}"
    assert card.partly_failed, "a card with a failed recipient does not look like a success"
    failed = [d for d in card.deliveries if d.status == "failed"]
    assert [(d.name, d.error) for d in failed] == [("Lee Jun", reason)]
    frame = wait_until(lambda: _last_frame_shows_all_settled(tenant_a, action))
    assert {d["contact"]: d["error"] for d in frame["action"]["deliveries"]} == {
        "Kim Minji": "",
        "Lee Jun": reason,
    }


def test_delivery_frames_never_reach_another_tenant_with_the_same_action_id(
    celery_worker_thread: None,
    tenant_a: Tenant,
    tenant_b: Tenant,
    fake_twilio: FakeTwilioServer,  # noqa: F811
) -> None:
    with tenant_context(tenant_a):
        action = _proposed(tenant_a)
    with tenant_context(tenant_b):
        twin = _twin(tenant_b, action)

    _approve_and_run(tenant_a, action)

    wait_until(lambda: _last_frame_shows_all_settled(tenant_a, action))

    assert _events(tenant_b, twin) == []
    with tenant_context(tenant_b):
        assert twin.status == PendingAction.Status.PENDING


def _twin(tenant: Tenant, action: PendingAction) -> PendingAction:
    """A pending action in ``tenant`` with ``action``'s id: the same uuid in another schema,
    so only the schema tells them apart."""
    staff, _ = _people(tenant, "b-")
    return PendingAction.objects.create(
        id=action.id,
        conversation=Conversation.objects.create(user=staff),
        tool_call_id="call_1",
        tool="send_sms",
        arguments=SMS,
        arguments_hash="-",
        description="SMS",
        requested_by=staff,
    )


def test_publishing_a_delivery_finds_only_the_current_tenants_action(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    with tenant_context(tenant_a):
        staff, _ = _people(tenant_a)
        _parents()
        action = _propose(staff)

    with tenant_context(tenant_b):
        assert action_delivery_publish(action_id=action.id) is False
    with tenant_context(tenant_a):
        assert action_delivery_publish(action_id=action.id) is True
    assert _events(tenant_a, action)[-1]["type"] == "action"
