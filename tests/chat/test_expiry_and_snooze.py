"""A request nobody decides expires (audited, once, never runs, the conversation is told); an
approver can snooze a request out of their own inbox until later, never past its expiry."""

from __future__ import annotations

import json
import threading
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.db import connections
from django.test import Client
from django.utils import timezone
from django_tenants.utils import tenant_context
from langchain_core.messages import AIMessage

from actions.models import Contact, OutboundMessage
from actions.tools.registry import tool_policy
from chat.agent.runner import CollectingEvents
from chat.models import ActionEvent, ActionSnooze, Conversation, Message, PendingAction
from chat.pending_actions import (
    ActionExpired,
    pending_action_decide,
    pending_action_propose,
    waited_hours,
)
from chat.presenters import action_card
from chat.selectors import inbox_actions, inbox_count
from chat.services.expiry import pending_action_expire
from chat.services.realtime import overdue_actions_expire
from chat.services.snoozes import snooze_preset_until
from chat.services.turns import turn_resume
from chat.tokens import api_token_create
from config.asgi import application
from core.schema import use_public_schema
from tenants.models import Tenant
from tenants.roles import APPROVER
from tenants.tasks import fan_out
from tests.chat.conftest import TurnRunner
from tests.chat.doors import token_client, wait_for_reply
from tests.chat.scripted import ScriptedChatModel, tool_call
from tests.tenants.factories import make_user

SMS = {"to": ["Emma Wilson"], "body": "Class moved to 3pm"}
EXPIRED_REPLY = (
    "The request to send an SMS to Emma Wilson expired after 24 h without a decision. "
    "Nothing was sent or changed."
)


def _pending(tenant: Tenant, requester: User, *, call: str = "call_1") -> PendingAction:
    with tenant_context(tenant):
        Contact.objects.get_or_create(name="Emma Wilson", phone="+12025550111")
        return pending_action_propose(
            conversation=Conversation.objects.create(user=requester),
            tool_call_id=call,
            tool="send_sms",
            arguments=SMS,
            requested_by_id=requester.pk,
        )


def _make_overdue(tenant: Tenant, action: PendingAction) -> None:
    """Move the action's proposal and expiry back in time, as if it had waited a day."""
    with tenant_context(tenant):
        day_ago = timezone.now() - timedelta(hours=24, seconds=1)
        PendingAction.objects.filter(pk=action.pk).update(
            created_at=day_ago, expires_at=day_ago + timedelta(hours=24)
        )


def _status(tenant: Tenant, action: PendingAction) -> str:
    with tenant_context(tenant):
        return PendingAction.objects.get(pk=action.pk).status


def _post(api: Client, path: str, body: Any) -> Any:
    raw = body if isinstance(body, str) else json.dumps(body)
    return api.post(path, raw, content_type="application/json")


# -- expiry ---------------------------------------------------------------------------------------


def test_a_proposal_expires_after_its_tool_policys_hours(tenant_a: Tenant) -> None:
    with tenant_context(tenant_a):
        policy = tool_policy("send_sms")
        policy.expires_after_hours = 2
        policy.save()

    action = _pending(tenant_a, make_user(tenant_a, "sam"))

    assert action.expires_at is not None
    assert waited_hours(action) == 2


def test_the_sweep_expires_an_overdue_action_once_and_audits_it(tenant_a: Tenant) -> None:
    staff = make_user(tenant_a, "sam")
    overdue, fresh = _pending(tenant_a, staff), _pending(tenant_a, staff, call="call_2")
    _make_overdue(tenant_a, overdue)

    with tenant_context(tenant_a):
        first, second = overdue_actions_expire(), overdue_actions_expire()
        events = list(ActionEvent.objects.filter(kind=ActionEvent.Kind.EXPIRED))

    assert (first, second) == (1, 0)
    assert _status(tenant_a, overdue) == PendingAction.Status.EXPIRED
    assert _status(tenant_a, fresh) == PendingAction.Status.PENDING
    assert [(e.action_id, e.actor_id, e.data) for e in events] == [
        (overdue.pk, None, {"after_hours": 24})
    ]


@pytest.mark.django_db(transaction=True)
def test_two_overlapping_sweeps_expire_each_action_exactly_once(tenant_a: Tenant) -> None:
    staff = make_user(tenant_a, "sam")
    actions = [_pending(tenant_a, staff, call=f"call_{n}") for n in range(6)]
    for action in actions:
        _make_overdue(tenant_a, action)
    start = threading.Barrier(2)
    expired: list[int] = []

    def sweep() -> None:
        try:
            with tenant_context(tenant_a):
                start.wait()
                expired.append(
                    sum(pending_action_expire(action_id=a.pk) is not None for a in actions)
                )
        finally:
            use_public_schema()
            connections.close_all()

    sweeps = [threading.Thread(target=sweep) for _ in range(2)]
    for thread in sweeps:
        thread.start()
    for thread in sweeps:
        thread.join()

    assert sum(expired) == len(actions)
    with tenant_context(tenant_a):
        assert ActionEvent.objects.filter(kind=ActionEvent.Kind.EXPIRED).count() == len(actions)
        assert set(PendingAction.objects.values_list("status", flat=True)) == {"expired"}


def test_an_action_not_yet_due_is_left_alone_by_the_sweep(tenant_a: Tenant) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))

    with tenant_context(tenant_a):
        assert pending_action_expire(action_id=action.pk) is None

    assert _status(tenant_a, action) == PendingAction.Status.PENDING


def test_approving_an_overdue_action_is_refused_and_it_never_runs(
    tenant_a: Tenant, in_tenant_a: Tenant
) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))
    _make_overdue(tenant_a, action)
    approver = make_user(tenant_a, "april", role=APPROVER)

    with pytest.raises(ActionExpired, match="expired after 24 h without a decision"):
        pending_action_decide(action_id=action.pk, user=approver, decision="approve")

    assert PendingAction.objects.get(pk=action.pk).decided_by_id is None
    assert OutboundMessage.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_an_http_approval_of_an_overdue_action_gets_409_expired_and_expires_it(
    tenant_a: Tenant, celery_worker_thread: None
) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))
    _make_overdue(tenant_a, action)
    approver = token_client(tenant_a, make_user(tenant_a, "april", role=APPROVER))

    response = _post(approver, f"/api/actions/{action.pk}/approve", {})

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "expired"
    assert "can no longer be approved" in response.json()["error"]["message"]
    assert _status(tenant_a, action) == PendingAction.Status.EXPIRED
    again = _post(approver, f"/api/actions/{action.pk}/approve", {})
    assert (again.status_code, again.json()["error"]["code"]) == (409, "expired")


@pytest.mark.django_db(transaction=True)
def test_a_websocket_approval_of_an_expired_action_gets_an_expired_error_frame(
    tenant_a: Tenant, celery_worker_thread: None
) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))
    _make_overdue(tenant_a, action)
    approver = make_user(tenant_a, "april", role=APPROVER)
    with tenant_context(tenant_a):
        _, token = api_token_create(user=approver, name="ws")
    host = tenant_a.get_primary_domain().domain

    async def decide() -> dict[str, Any]:
        socket = WebsocketCommunicator(
            application,
            "/ws/chat/",
            headers=[(b"host", host.encode()), (b"authorization", f"Bearer {token}".encode())],
        )
        connected, _ = await socket.connect()
        assert connected
        frame = {"type": "action.decide", "action": str(action.pk), "decision": "approve"}
        await socket.send_to(text_data=json.dumps(frame))
        while (answer := json.loads(await socket.receive_from(timeout=10)))["type"] != "error":
            pass
        await socket.disconnect()
        return answer

    answer = async_to_sync(decide)()

    assert answer["code"] == "expired"
    assert _status(tenant_a, action) == PendingAction.Status.EXPIRED


@pytest.mark.django_db(transaction=True)
def test_the_fanned_out_job_expires_and_closes_out_the_waiting_turn_with_a_clear_message(
    ask: TurnRunner, tenant_a: Tenant, tenant_b: Tenant, celery_worker_thread: None
) -> None:
    Contact.objects.create(name="Emma Wilson", phone="+12025550111")
    model = ScriptedChatModel(replies=[tool_call("send_sms", **SMS), AIMessage("unused")])
    turn = ask("Text Emma that class moved to 3pm", model=model)
    action = PendingAction.objects.get(conversation=turn.conversation)
    _make_overdue(tenant_a, action)
    elsewhere = _pending(tenant_b, make_user(tenant_b, "sam"))  # not due: left alone

    fan_out.delay("chat.expire_overdue_actions")

    reply = wait_for_reply(tenant_a, run_id=action.pk)
    assert reply.content == EXPIRED_REPLY
    assert _status(tenant_a, action) == PendingAction.Status.EXPIRED
    assert _status(tenant_b, elsewhere) == PendingAction.Status.PENDING
    with tenant_context(tenant_a):
        assert OutboundMessage.objects.count() == 0


def test_the_expiry_job_of_one_tenant_never_touches_another_tenants_actions(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))
    _make_overdue(tenant_a, action)

    with tenant_context(tenant_b):
        assert overdue_actions_expire() == 0

    assert _status(tenant_a, action) == PendingAction.Status.PENDING


def test_the_requesters_card_says_who_can_approve_and_when_it_expires(
    tenant_a: Tenant, in_tenant_a: Tenant
) -> None:
    staff = make_user(tenant_a, "sam")
    make_user(tenant_a, "april", role=APPROVER)
    make_user(tenant_a, "avery", role=APPROVER)
    action = _pending(tenant_a, staff)

    card = action_card(PendingAction.objects.get(pk=action.pk), viewer=staff)

    assert card.approvers == "Approvers group (2 people)"
    assert card.expires_at == action.expires_at


def test_an_expired_card_says_why_and_offers_no_decision(
    tenant_a: Tenant, in_tenant_a: Tenant
) -> None:
    staff = make_user(tenant_a, "sam")
    approver = make_user(tenant_a, "april", role=APPROVER)
    action = _pending(tenant_a, staff)
    _make_overdue(tenant_a, action)
    overdue_actions_expire()
    expired = PendingAction.objects.get(pk=action.pk)

    for viewer in (staff, approver):
        card = action_card(expired, viewer=viewer)
        assert card.status_label == "Expired"
        assert "can no longer be approved" in card.outcome
        assert not card.can_decide and not card.can_withdraw and not card.approvers


# -- snooze ---------------------------------------------------------------------------------------


def _snooze(api: Client, action: PendingAction, body: Any) -> Any:
    return _post(api, f"/api/actions/{action.pk}/snooze", body)


def test_a_snoozed_request_leaves_only_that_approvers_inbox_until_the_snooze_ends(
    tenant_a: Tenant,
) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))
    april = make_user(tenant_a, "april", role=APPROVER)
    avery = make_user(tenant_a, "avery", role=APPROVER)

    response = _snooze(token_client(tenant_a, april), action, {"until": "1h"})

    assert response.status_code == 200
    with tenant_context(tenant_a):
        assert list(inbox_actions(tools=["send_sms"], viewer=april)) == []
        assert inbox_count(tools=["send_sms"], viewer=april) == 0
        assert inbox_count(tools=["send_sms"], viewer=avery) == 1
        event = ActionEvent.objects.get(kind=ActionEvent.Kind.SNOOZED)
        assert event.actor_id == april.pk
        # The snooze ends: the request is back in april's inbox and badge.
        ActionSnooze.objects.update(until=timezone.now() - timedelta(seconds=1))
        assert [a.pk for a in inbox_actions(tools=["send_sms"], viewer=april)] == [action.pk]
        assert inbox_count(tools=["send_sms"], viewer=april) == 1
    assert _status(tenant_a, action) == PendingAction.Status.PENDING


def test_snoozing_until_tomorrow_ends_at_nine_in_the_tenants_time_zone(
    tenant_a: Tenant, in_tenant_a: Tenant
) -> None:
    tenant_a.time_zone = "Asia/Seoul"
    tenant_a.save(update_fields=["time_zone"])
    late_evening_in_seoul = datetime(2026, 3, 10, 14, 30, tzinfo=ZoneInfo("UTC"))  # 23:30 KST

    until = snooze_preset_until("tomorrow", now=late_evening_in_seoul)

    assert until.astimezone(ZoneInfo("Asia/Seoul")) == datetime(
        2026, 3, 11, 9, 0, tzinfo=ZoneInfo("Asia/Seoul")
    )


def test_snoozing_with_an_iso_time_answers_the_snooze_end(tenant_a: Tenant) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))
    until = (timezone.now() + timedelta(hours=3)).replace(microsecond=0)

    response = _snooze(
        token_client(tenant_a, make_user(tenant_a, "april", role=APPROVER)),
        action,
        {"until": until.isoformat()},
    )

    assert response.status_code == 200
    assert datetime.fromisoformat(response.json()["snoozed_until"]) == until
    assert response.json()["action"]["status"] == "pending"


@pytest.mark.parametrize(
    ("body", "code", "says"),
    [
        ("{}", "bad_request", "'until' must be"),
        ('{"until": 5}', "bad_request", "'until' must be"),
        ('{"until": "soon"}', "bad_request", "neither"),
        ('{"until": "2030-01-01T09:00:00"}', "bad_request", "UTC offset"),
        ('{"until": "0001-01-01T00:00:00+05:00"}', "bad_request", "out of range"),
        ('{"until": "2001-01-01T09:00:00+00:00"}', "invalid_snooze", "in the past"),
        ('{"until": "2999-01-01T09:00:00+00:00"}', "invalid_snooze", "cannot outlast"),
        ("not json", "bad_request", "not usable"),
        ('["1h"]', "bad_request", "JSON object"),
    ],
)
def test_a_bad_snooze_gets_a_400_with_the_reason_and_changes_nothing(
    tenant_a: Tenant, body: str, code: str, says: str
) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))

    response = _snooze(
        token_client(tenant_a, make_user(tenant_a, "april", role=APPROVER)), action, body
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert says in response.json()["error"]["message"]
    with tenant_context(tenant_a):
        assert not ActionSnooze.objects.exists()


def test_tomorrow_is_refused_when_the_request_expires_before_it(tenant_a: Tenant) -> None:
    with tenant_context(tenant_a):
        policy = tool_policy("send_sms")
        policy.expires_after_hours = 1
        policy.save()
    action = _pending(tenant_a, make_user(tenant_a, "sam"))

    response = _snooze(
        token_client(tenant_a, make_user(tenant_a, "april", role=APPROVER)),
        action,
        {"until": "tomorrow"},
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_snooze"


def test_only_someone_who_may_decide_the_request_can_snooze_it(tenant_a: Tenant) -> None:
    staff = make_user(tenant_a, "sam")
    action = _pending(tenant_a, staff)

    by_requester = _snooze(token_client(tenant_a, staff), action, {"until": "1h"})
    by_colleague = _snooze(
        token_client(tenant_a, make_user(tenant_a, "kim")), action, {"until": "1h"}
    )

    for response in (by_requester, by_colleague):
        assert response.status_code == 403 and response.json()["error"]["code"] == "forbidden"
    with tenant_context(tenant_a):
        assert not ActionSnooze.objects.exists()


def test_a_request_of_tenant_a_cannot_be_snoozed_from_tenant_b(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))
    outsider = make_user(tenant_b, "april", role=APPROVER)  # an approver, elsewhere

    response = _snooze(token_client(tenant_b, outsider), action, {"until": "1h"})

    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    with tenant_context(tenant_a):
        assert not ActionSnooze.objects.exists()


def test_an_expired_request_cannot_be_snoozed(tenant_a: Tenant) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))
    _make_overdue(tenant_a, action)

    response = _snooze(
        token_client(tenant_a, make_user(tenant_a, "april", role=APPROVER)), action, {"until": "1h"}
    )

    assert response.status_code == 409 and response.json()["error"]["code"] == "expired"


def test_snooze_answers_get_with_method_not_allowed(tenant_a: Tenant) -> None:
    action = _pending(tenant_a, make_user(tenant_a, "sam"))
    api = token_client(tenant_a, make_user(tenant_a, "april", role=APPROVER))

    assert api.get(f"/api/actions/{action.pk}/snooze").status_code == 405


def test_an_expiry_after_the_conversation_moved_on_is_still_told_once(
    ask: TurnRunner, tenant_a: Tenant
) -> None:
    Contact.objects.create(name="Emma Wilson", phone="+12025550111")
    first = ask(
        "Text Emma that class moved to 3pm",
        model=ScriptedChatModel(replies=[tool_call("send_sms", **SMS)]),
    )
    ask(
        "How long is lunch?",
        model=ScriptedChatModel(replies=[AIMessage("An hour.")]),
        conversation=first.conversation,
    )
    action = PendingAction.objects.get(conversation=first.conversation)
    _make_overdue(tenant_a, action)
    expired = pending_action_expire(action_id=action.pk)
    assert expired is not None

    replies = [
        turn_resume(action=expired, events=CollectingEvents(), model=ScriptedChatModel(replies=[]))
        for _ in range(2)  # the second is a redelivered resume
    ]

    assert [reply.content if reply else None for reply in replies] == [EXPIRED_REPLY] * 2
    assert Message.objects.filter(run_id=action.pk).count() == 1
