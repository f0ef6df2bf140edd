"""A stored message always gets a reply or an ``error`` event, even when its ``run_turn`` task
was lost (a worker killed before it recorded the task, a broker that lost the message, a
publish that failed after the message was stored): the server recovers it, not the client.

A beat job (``chat.requeue_stranded_turns``, per tenant) finds user messages left without a
reply, not paused for a decision, with no turn holding or reserving their conversation, for
``CHAT_STRANDED_TURN_SECONDS``; it reserves the conversation and queues the turn again, at most
``CHAT_STRANDED_TURN_ATTEMPTS`` times, then ends it with the error reply and an ``error`` event.
"""

from __future__ import annotations

import json
import time
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.utils import timezone
from django_tenants.utils import tenant_context

from chat.events.log import frames_after_async
from chat.locks import conversation_lock, execution_token, reservation_token
from chat.models import Message
from chat.services.realtime import stranded_turns_requeue
from chat.services.turns import ERROR_REPLY, turn_start
from core.schema import current_schema
from tenants.models import Tenant
from tenants.tasks import fan_out
from tests.chat.conftest import People, TurnRunner
from tests.chat.stranded import sms_requested
from tests.tenants.factories import make_user


def _lost_turn(tenant: Tenant, text: str, *, seconds_ago: float) -> Message:
    """A message stored ``seconds_ago`` whose ``run_turn`` never reached a worker (the turn
    service alone queues nothing: the send use case queues the turn, here lost)."""
    with tenant_context(tenant):
        user = make_user(tenant, f"staff-{time.monotonic_ns()}")
        _, message, _ = turn_start(user=user, text=text)
        Message.objects.filter(pk=message.pk).update(
            created_at=timezone.now() - timedelta(seconds=seconds_ago)
        )
        return Message.objects.select_related("conversation").get(pk=message.pk)


def _published(message: Message) -> list[dict[str, Any]]:
    frames = async_to_sync(frames_after_async)(
        schema=current_schema(), conversation_uuid=str(message.conversation.uuid), after=0
    )
    return [json.loads(frame.text) for frame in frames]


def test_a_message_left_without_a_turn_has_its_turn_queued_again(
    tenant_a: Tenant, turns_queued: list[int], settings: Any
) -> None:
    settings.CHAT_STRANDED_TURN_SECONDS = 120
    lost = _lost_turn(tenant_a, "When does the library open?", seconds_ago=121)
    recent = _lost_turn(tenant_a, "And on Sundays?", seconds_ago=5)  # may still be queued

    with tenant_context(tenant_a):
        assert stranded_turns_requeue() == 1

    assert turns_queued == [lost.pk]
    assert recent.pk not in turns_queued


def test_a_message_whose_conversation_a_turn_holds_is_left_alone(
    tenant_a: Tenant, turns_queued: list[int]
) -> None:
    running = _lost_turn(tenant_a, "When does the library open?", seconds_ago=3600)
    with tenant_context(tenant_a):
        assert conversation_lock(running.conversation, execution_token(running.uuid)).acquire()

        assert stranded_turns_requeue() == 0

    assert turns_queued == []


def test_a_message_whose_turn_paused_for_approval_is_left_to_the_decision(
    ask: TurnRunner, people_a: People, turns_queued: list[int]
) -> None:
    action = sms_requested(ask)
    Message.objects.filter(conversation=action.conversation).update(
        created_at=timezone.now() - timedelta(hours=1)
    )

    assert stranded_turns_requeue() == 0
    assert turns_queued == []


def test_a_turn_queued_again_too_often_ends_with_the_error_reply_and_an_error_event(
    tenant_a: Tenant, turns_queued: list[int], settings: Any
) -> None:
    settings.CHAT_STRANDED_TURN_ATTEMPTS = 2
    lost = _lost_turn(tenant_a, "When does the library open?", seconds_ago=3600)

    with tenant_context(tenant_a):
        for _ in range(3):
            # Each queued copy is lost too: the sweep's reservation lapses with it.
            conversation_lock(lost.conversation, reservation_token(lost.uuid)).release()
            stranded_turns_requeue()
        reply = Message.objects.get(run_id=lost.uuid, role=Message.Role.ASSISTANT)
        published = _published(lost)

        assert stranded_turns_requeue() == 0, "an ended turn is never queued again"

    assert turns_queued == [lost.pk, lost.pk]
    assert (reply.content, reply.status) == (ERROR_REPLY, Message.Status.ERROR)
    assert [frame["type"] for frame in published] == ["error"]
    assert published[0]["code"] == "agent_error"


def test_an_older_message_the_conversation_moved_past_is_ended_not_run(
    tenant_a: Tenant, turns_queued: list[int]
) -> None:
    lost = _lost_turn(tenant_a, "When does the library open?", seconds_ago=3600)
    with tenant_context(tenant_a):
        assert lost.sender is not None
        _, later, _ = turn_start(
            user=lost.sender, text="And on Sundays?", conversation_uuid=lost.conversation.uuid
        )
        Message.objects.create(
            conversation=lost.conversation,
            role=Message.Role.ASSISTANT,
            content="On Sundays it is closed.",
            run_id=later.uuid,
        )

        stranded_turns_requeue()

        reply = Message.objects.get(run_id=lost.uuid, role=Message.Role.ASSISTANT)
    assert turns_queued == [], "answering it now would answer it after the later question"
    assert reply.status == Message.Status.ERROR


def test_one_tenants_sweep_never_queues_another_tenants_turns(
    tenant_a: Tenant, tenant_b: Tenant, turns_queued: list[int]
) -> None:
    _lost_turn(tenant_a, "When does the library open?", seconds_ago=3600)

    with tenant_context(tenant_b):
        assert stranded_turns_requeue() == 0

    assert turns_queued == []


@pytest.mark.django_db(transaction=True)
def test_the_fanned_out_job_answers_a_message_whose_turn_was_lost(
    tenant_a: Tenant, celery_worker_thread: None
) -> None:
    lost = _lost_turn(tenant_a, "Hello there", seconds_ago=3600)

    fan_out.delay("chat.requeue_stranded_turns")

    deadline = time.monotonic() + 60
    reply = None
    while reply is None and time.monotonic() < deadline:
        with tenant_context(tenant_a):
            reply = Message.objects.filter(run_id=lost.uuid, role=Message.Role.ASSISTANT).first()
        time.sleep(0.2)
    assert reply is not None, "the server answered the message without the client resending"
    assert reply.status == Message.Status.COMPLETE
    with tenant_context(tenant_a):
        assert [f["type"] for f in _published(lost)][-1] == "done"
