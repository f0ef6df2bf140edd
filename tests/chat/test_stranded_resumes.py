"""An approval is executed even when its resume task is lost.

The Redis broker drops a task whose worker is killed between taking it off the queue and
recording it as unacknowledged (seen in tests/faults/test_approval_crash.py: the action stayed
``approved`` for good). Two paths bring it back: a redelivered run of the turn that paused finds
the action decided and queues the resume again, and a beat job queues the resume of every
approval no resume claimed within ``CHAT_STRANDED_RESUME_SECONDS``.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from django_tenants.utils import tenant_context
from langchain_core.messages import AIMessage

from actions.models import Contact, OutboundMessage
from chat.agent.runner import CollectingEvents
from chat.models import Conversation, Message, PendingAction
from chat.pending_actions import pending_action_decide, pending_action_propose
from chat.services.realtime import stranded_resumes_requeue
from chat.services.turns import turn_run
from core.celery import app
from tenants.models import Tenant
from tenants.roles import APPROVER
from tenants.tasks import fan_out
from tests.chat.conftest import People, TurnRunner
from tests.chat.scripted import ScriptedChatModel, tool_call
from tests.tenants.factories import make_user

SMS = {"to": ["Emma Wilson"], "body": "Class moved to 3pm"}


@pytest.fixture
def resumes_queued(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The action ids of the resumes queued (instead of sending them to the broker)."""
    queued: list[str] = []
    monkeypatch.setattr(app.tasks["chat.resume_turn"], "delay", queued.append)
    return queued


def _approved(tenant: Tenant, *, seconds_ago: float) -> PendingAction:
    """An action approved ``seconds_ago`` whose resume never ran (the decision service alone
    queues nothing: the use case queues the resume, here lost)."""
    with tenant_context(tenant):
        Contact.objects.get_or_create(name="Emma Wilson", phone="+12025550111")
        requester = make_user(tenant, f"staff-{time.monotonic_ns()}")
        approver = make_user(tenant, f"approver-{time.monotonic_ns()}", role=APPROVER)
        action = pending_action_propose(
            conversation=Conversation.objects.create(user=requester),
            tool_call_id="call_1",
            tool="send_sms",
            arguments=SMS,
            requested_by_id=requester.pk,
        )
        pending_action_decide(action_id=action.id, user=approver, decision="approve")
        PendingAction.objects.filter(pk=action.pk).update(
            decided_at=timezone.now() - timedelta(seconds=seconds_ago)
        )
        return PendingAction.objects.get(pk=action.pk)


def _sms_model() -> ScriptedChatModel:
    return ScriptedChatModel(replies=[tool_call("send_sms", **SMS), AIMessage("Sent.")])


def _approved_in_a_turn(
    ask: TurnRunner, people_a: People, text: str, model: ScriptedChatModel
) -> PendingAction:
    """The action a turn proposed, approved with the decision service alone (no resume)."""
    Contact.objects.create(name="Emma Wilson", phone="+12025550111")
    turn = ask(text, model=model)
    action = PendingAction.objects.get(conversation=turn.conversation)
    pending_action_decide(action_id=action.id, user=people_a.approver, decision="approve")
    return action


def test_an_approval_no_resume_claimed_in_time_has_its_resume_queued_again(
    tenant_a: Tenant, resumes_queued: list[str], settings: Any
) -> None:
    settings.CHAT_STRANDED_RESUME_SECONDS = 120
    stranded = _approved(tenant_a, seconds_ago=121)
    recent = _approved(tenant_a, seconds_ago=5)  # its resume may still be on its way

    with tenant_context(tenant_a):
        assert stranded_resumes_requeue() == 1

    assert resumes_queued == [str(stranded.id)]
    assert str(recent.id) not in resumes_queued


def test_an_approval_a_resume_has_claimed_is_left_alone(
    tenant_a: Tenant, resumes_queued: list[str]
) -> None:
    action = _approved(tenant_a, seconds_ago=3600)
    with tenant_context(tenant_a):
        PendingAction.objects.filter(pk=action.pk).update(status=PendingAction.Status.EXECUTING)

        assert stranded_resumes_requeue() == 0

    assert resumes_queued == []


def test_one_tenants_sweep_never_queues_another_tenants_resumes(
    tenant_a: Tenant, tenant_b: Tenant, resumes_queued: list[str]
) -> None:
    _approved(tenant_a, seconds_ago=3600)

    with tenant_context(tenant_b):
        assert stranded_resumes_requeue() == 0

    assert resumes_queued == []


def test_a_redelivered_turn_that_finds_its_action_approved_queues_the_resume_not_a_new_card(
    ask: TurnRunner, people_a: People, resumes_queued: list[str]
) -> None:
    model = _sms_model()
    action = _approved_in_a_turn(ask, people_a, "Can you text Emma that class moved to 3pm?", model)
    asked = Message.objects.get(conversation=action.conversation, role=Message.Role.USER)

    events = CollectingEvents()
    again = turn_run(conversation=action.conversation, message=asked, events=events, model=model)

    assert again is None
    assert events.of("pending") == [], "the approver is not asked a second time"
    assert resumes_queued == [str(action.id)]
    assert OutboundMessage.objects.count() == 0, "the resume, not this run, executes it"


@pytest.mark.django_db(transaction=True)
def test_the_fanned_out_job_executes_an_approval_whose_resume_was_lost(
    ask: TurnRunner, tenant_a: Tenant, people_a: People, celery_worker_thread: None
) -> None:
    action = _approved_in_a_turn(ask, people_a, "Text Emma that class moved to 3pm", _sms_model())
    PendingAction.objects.filter(pk=action.pk).update(
        decided_at=timezone.now() - timedelta(hours=1)
    )

    fan_out.delay("chat.requeue_stranded_resumes")

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with tenant_context(tenant_a):
            status = PendingAction.objects.get(pk=action.pk).status
        if status == PendingAction.Status.EXECUTED:
            break
        time.sleep(0.2)
    assert status == PendingAction.Status.EXECUTED
    with tenant_context(tenant_a):
        assert list(OutboundMessage.objects.values_list("to_address", flat=True)) == [
            "+12025550111"
        ]
