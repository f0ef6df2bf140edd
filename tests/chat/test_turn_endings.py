"""Every stored user message gets exactly one ending: its reply's ``done``, or one ``error``
naming the message it ends (``reply_to``), whatever is redelivered, queued again or swept.

Found by the first full chaos run (docs/operations.md, "Fault schedule"): the same ``done``
published up to five times (each queued copy of a turn that already had its reply published
it again), an ``error`` and then a ``done`` for one message (the sweep ended a turn whose task
still waited in a busy queue, then the task ran), "reply was lost" errors naming no message,
and a second message accepted while the first had no ending (its reservation had lapsed).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import redis
from asgiref.sync import async_to_sync
from django.db import OperationalError
from django.utils import timezone
from django_tenants.utils import tenant_context

from actions.models import Contact
from chat import pending_actions
from chat.agent import nodes, runner
from chat.agent.graph import build_graph
from chat.events import publishing
from chat.events.log import frames_after_async
from chat.events.publishing import PublishingEvents
from chat.locks import ConversationLock, conversation_lock, reservation_token
from chat.models import Message, PendingAction
from chat.services import realtime, turns
from chat.services.expiry import stranded_turn_messages
from chat.services.realtime import (
    Accepted,
    ConversationBusy,
    message_send,
    resume_execute,
    stranded_turns_requeue,
    turn_execute,
    unannounced_cards_publish,
    unannounced_endings_publish,
)
from core.redis_clients import sync_redis
from core.schema import current_schema
from tenants.models import Tenant
from tenants.names import turn_claim_key
from tests.chat.conftest import People, TurnRunner
from tests.chat.scripted import ScriptedChatModel
from tests.chat.stranded import decide, sms_requested


@pytest.fixture
def accepted(people_a: People, turns_queued: list[int]) -> Iterator[Accepted]:
    sent = message_send(
        user=people_a.staff,
        text="Is the office open on Saturday?",
        conversation_uuid=None,
        client_id=None,
    )
    yield sent
    _lapse_reservation(sent.message)


def _lapse_reservation(message: Message) -> None:
    """What ``CHAT_TURN_LOCK_SECONDS`` does to a reservation whose task waits in a busy queue."""
    lock = conversation_lock(message.conversation, reservation_token(message.uuid))
    lock.client.delete(lock.key)


def _age(message: Message, *, seconds: float) -> None:
    Message.objects.filter(pk=message.pk).update(
        created_at=timezone.now() - timedelta(seconds=seconds)
    )


def _endings(message: Message) -> list[dict[str, Any]]:
    frames = async_to_sync(frames_after_async)(
        schema=current_schema(), conversation_uuid=str(message.conversation.uuid), after=0
    )
    events = [json.loads(frame.text) for frame in frames]
    return [e for e in events if e["type"] in ("done", "error")]


def test_a_run_turn_delivered_twice_publishes_its_done_once(accepted: Accepted) -> None:
    turn_execute(message_id=accepted.message.pk)
    turn_execute(message_id=accepted.message.pk)  # the broker's second delivery

    endings = _endings(accepted.message)

    assert [e["type"] for e in endings] == ["done"]


def test_a_resume_delivered_twice_publishes_its_done_once(
    ask: TurnRunner, people_a: People
) -> None:
    action = sms_requested(ask)
    decide(action, user=people_a.approver, decision="reject")

    resume_execute(action_id=str(action.id))
    resume_execute(action_id=str(action.id))  # the broker's second delivery

    frames = async_to_sync(frames_after_async)(
        schema=current_schema(), conversation_uuid=str(action.conversation.uuid), after=0
    )
    endings = [e for e in (json.loads(f.text) for f in frames) if e["type"] in ("done", "error")]
    assert [e["type"] for e in endings] == ["done"]


def test_a_turn_the_sweep_ended_while_its_task_waited_in_the_queue_ends_once(
    accepted: Accepted, settings: Any
) -> None:
    settings.CHAT_STRANDED_TURN_ATTEMPTS = 1
    _age(accepted.message, seconds=3600)
    for _ in range(2):  # queued again once, then ended with the error reply
        _lapse_reservation(accepted.message)
        stranded_turns_requeue()

    _lapse_reservation(accepted.message)
    turn_execute(message_id=accepted.message.pk)  # the task that waited runs at last

    assert [e["type"] for e in _endings(accepted.message)] == ["error"]


def test_an_overlapping_sweep_that_listed_the_message_before_it_ended_publishes_nothing(
    accepted: Accepted, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.CHAT_STRANDED_TURN_ATTEMPTS = 1
    _age(accepted.message, seconds=3600)
    _lapse_reservation(accepted.message)
    stranded_turns_requeue()
    _lapse_reservation(accepted.message)
    listed_earlier = stranded_turn_messages(older_than_seconds=0)
    stranded_turns_requeue()  # ends it

    # A second worker's sweep listed the message before the first one ended it.
    monkeypatch.setattr(realtime, "stranded_turn_messages", lambda **_: listed_earlier)
    assert stranded_turns_requeue() == 0

    assert [e["type"] for e in _endings(accepted.message)] == ["error"]


def test_the_error_that_ends_a_lost_turn_names_its_message(
    accepted: Accepted, settings: Any
) -> None:
    settings.CHAT_STRANDED_TURN_ATTEMPTS = 1
    _age(accepted.message, seconds=3600)
    for _ in range(2):
        _lapse_reservation(accepted.message)
        stranded_turns_requeue()

    (ending,) = _endings(accepted.message)

    assert ending["reply_to"] == str(accepted.message.uuid)


def test_a_message_sent_while_the_previous_one_has_no_ending_is_refused(
    accepted: Accepted, people_a: People
) -> None:
    _lapse_reservation(accepted.message)  # its task still waits in a busy queue

    with pytest.raises(ConversationBusy):
        message_send(
            user=people_a.staff,
            text="and another thing",
            conversation_uuid=str(accepted.conversation.uuid),
            client_id=None,
        )

    assert accepted.conversation.messages.filter(role=Message.Role.USER).count() == 1


def test_a_message_sent_after_the_previous_one_ended_is_accepted(
    accepted: Accepted, people_a: People
) -> None:
    turn_execute(message_id=accepted.message.pk)

    again = message_send(
        user=people_a.staff,
        text="and another thing",
        conversation_uuid=str(accepted.conversation.uuid),
        client_id=None,
    )

    assert again.created
    _lapse_reservation(again.message)


def test_a_turn_whose_run_failed_after_its_error_was_published_is_not_run_again(
    people_a: People, turns_queued: list[int]
) -> None:
    Contact.objects.create(name="Emma Wilson", phone="+12025550111")
    sent = message_send(
        user=people_a.staff,
        text="Can you text Emma that class moved to 3pm?",
        conversation_uuid=None,
        client_id=None,
    )
    # A run failed before it stored a reply (PostgreSQL restarting): its error was published.
    PublishingEvents(
        schema=current_schema(),
        conversation=sent.conversation,
        run_id=sent.message.uuid,
        reply_to=sent.message.uuid,
    ).error("agent_error", "OperationalError: the assistant failed")

    _lapse_reservation(sent.message)
    turn_execute(message_id=sent.message.pk)  # its redelivered task

    reply = Message.objects.get(run_id=sent.message.uuid, role=Message.Role.ASSISTANT)
    assert reply.status == Message.Status.ERROR
    assert not PendingAction.objects.filter(conversation=sent.conversation).exists()
    assert [e["type"] for e in _endings(sent.message)] == ["error"]


def test_a_done_names_the_message_it_answers(accepted: Accepted) -> None:
    turn_execute(message_id=accepted.message.pk)

    (done,) = _endings(accepted.message)

    assert done["reply_to"] == str(accepted.message.uuid)


# -- an execution that outlived its lease (found by the short chaos run) ------------------------


@pytest.fixture
def sms_sent(people_a: People, turns_queued: list[int]) -> Accepted:
    Contact.objects.create(name="Emma Wilson", phone="+12025550111")
    return message_send(
        user=people_a.staff,
        text="Can you text Emma that class moved to 3pm?",
        conversation_uuid=None,
        client_id=None,
    )


def _taken_over_by_another_execution(message: Message) -> None:
    """What a redelivered copy does when this execution stops past its lease: it claims the
    run (chat/locks.py)."""
    sync_redis().set(turn_claim_key(current_schema(), message.uuid), "run:the-other-copy")


def test_an_execution_taken_over_as_it_proposes_leaves_no_card_and_no_ending(
    sms_sent: Accepted, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_propose = pending_actions.pending_action_propose

    def propose_then_lose_the_run(**kwargs: Any) -> PendingAction:
        action = real_propose(**kwargs)
        _taken_over_by_another_execution(sms_sent.message)  # stopped here, past its lease
        return action

    monkeypatch.setattr(pending_actions, "pending_action_propose", propose_then_lose_the_run)

    turn_execute(message_id=sms_sent.message.pk)  # stops quietly: the other copy owns the turn

    assert not PendingAction.objects.filter(conversation=sms_sent.conversation).exists()
    assert not Message.objects.filter(run_id=sms_sent.message.uuid).exists()
    assert _endings(sms_sent.message) == []


def test_an_execution_taken_over_before_it_announced_anything_publishes_nothing(
    sms_sent: Accepted, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_run_lock = realtime.run_lock

    def lock_then_stop(conversation: Any, run_id: Any) -> Any:
        lock = real_run_lock(conversation, run_id)
        real_take_over = lock.take_over

        def take_over(*, from_token: str) -> bool:
            taken = real_take_over(from_token=from_token)
            _taken_over_by_another_execution(sms_sent.message)
            return taken

        lock.take_over = take_over  # type: ignore[method-assign]
        return lock

    monkeypatch.setattr(realtime, "run_lock", lock_then_stop)

    turn_execute(message_id=sms_sent.message.pk)

    frames = async_to_sync(frames_after_async)(
        schema=current_schema(), conversation_uuid=str(sms_sent.conversation.uuid), after=0
    )
    assert [json.loads(f.text)["type"] for f in frames] == ["message"]  # not its "thinking"
    assert not PendingAction.objects.filter(conversation=sms_sent.conversation).exists()


def test_the_execution_that_took_the_run_over_proposes_the_one_card(
    sms_sent: Accepted, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_propose = pending_actions.pending_action_propose
    calls = 0

    def the_first_copy_stops_as_it_proposes(**kwargs: Any) -> PendingAction:
        nonlocal calls
        calls += 1
        action = real_propose(**kwargs)
        if calls == 1:
            _taken_over_by_another_execution(sms_sent.message)
        return action

    monkeypatch.setattr(
        pending_actions, "pending_action_propose", the_first_copy_stops_as_it_proposes
    )
    turn_execute(message_id=sms_sent.message.pk)  # the stopped copy: nothing
    turn_execute(message_id=sms_sent.message.pk)  # the redelivered copy runs the turn

    (card,) = PendingAction.objects.filter(conversation=sms_sent.conversation)
    assert card.status == PendingAction.Status.PENDING


def test_a_run_that_fails_after_it_paused_leaves_the_turn_to_its_decision(
    sms_sent: Accepted,
    people_a: People,
    resumes_queued: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_usage_record = turns.usage_record

    def fails_as_postgres_restarts(**kwargs: Any) -> None:
        if not kwargs["finished_turn"]:  # counting the paused run's model calls
            raise OperationalError("terminating connection due to administrator command")
        real_usage_record(**kwargs)

    monkeypatch.setattr(turns, "usage_record", fails_as_postgres_restarts)
    with pytest.raises(OperationalError):
        turn_execute(message_id=sms_sent.message.pk)
    monkeypatch.setattr(turns, "usage_record", real_usage_record)

    assert _endings(sms_sent.message) == []  # paused: no error for a turn that waits
    action = PendingAction.objects.get(conversation=sms_sent.conversation)
    decide(action, user=people_a.approver, decision="reject")
    resume_execute(action_id=str(action.id))

    assert [e["type"] for e in _endings(sms_sent.message)] == ["done"]


class _RestartingCheckpointer:
    """A graph whose checkpoint cannot be read: PostgreSQL restarting under the run."""

    def get_state(self, config: Any) -> Any:
        raise OperationalError("the database system is shutting down")


def test_a_redelivered_run_of_a_paused_turn_that_fails_ends_nothing(
    sms_sent: Accepted, people_a: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    turn_execute(message_id=sms_sent.message.pk)  # pauses on its card
    with monkeypatch.context() as restarting:
        restarting.setattr(runner, "graph_for", lambda model: _RestartingCheckpointer())
        turn_execute(message_id=sms_sent.message.pk)  # the broker's second delivery

    assert _endings(sms_sent.message) == []
    assert not Message.objects.filter(run_id=sms_sent.message.uuid).exists()
    action = PendingAction.objects.get(conversation=sms_sent.conversation)
    decide(action, user=people_a.approver, decision="reject")
    resume_execute(action_id=str(action.id))

    assert [e["type"] for e in _endings(sms_sent.message)] == ["done"]


# -- a reply stored while Redis went away (found by the full chaos run) -------------------------


def _redis_away_while_announcing(monkeypatch: pytest.MonkeyPatch, accepted: Accepted) -> None:
    """The run stores its reply, then Redis is gone as it announces it (and its error)."""

    real_append_ending = publishing.append_ending

    def refused(**kwargs: Any) -> bool:
        if kwargs["payload"]["type"] in ("done", "error"):
            raise redis.ConnectionError("Connection refused")
        return real_append_ending(**kwargs)

    with monkeypatch.context() as away:
        away.setattr(publishing, "append_ending", refused)
        turn_execute(message_id=accepted.message.pk)  # stored: only its announcement failed
    assert Message.objects.filter(run_id=accepted.message.uuid).exists()
    assert _endings(accepted.message) == []


def test_the_sweep_announces_a_reply_stored_without_its_ending_once(
    accepted: Accepted, monkeypatch: pytest.MonkeyPatch
) -> None:
    _redis_away_while_announcing(monkeypatch, accepted)
    Message.objects.filter(run_id=accepted.message.uuid).update(
        created_at=timezone.now() - timedelta(seconds=30)
    )

    assert unannounced_endings_publish() == 1
    assert unannounced_endings_publish() == 0  # the next sweep

    (done,) = _endings(accepted.message)
    assert done["type"] == "done"
    assert done["reply_to"] == str(accepted.message.uuid)


def test_the_next_message_announces_the_previous_reply_before_it_is_stored(
    accepted: Accepted, people_a: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    _redis_away_while_announcing(monkeypatch, accepted)

    again = message_send(
        user=people_a.staff,
        text="and another thing",
        conversation_uuid=str(accepted.conversation.uuid),
        client_id=None,
    )

    assert again.created
    assert [e["type"] for e in _endings(accepted.message)] == ["done"]
    _lapse_reservation(again.message)


# -- a turn run while Redis is away (a restart under a streaming turn, seen in CI) -------------


def _redis_away(away: pytest.MonkeyPatch) -> None:
    """From the moment the run has announced its question, every Redis call of it fails, as
    while Redis restarts: its frames, its ending, its cancel check and the check that the run
    is still its turn's."""
    real_append_ending = publishing.append_ending

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise redis.ConnectionError("Error 111 connecting to 127.0.0.1. Connection refused.")

    def ending_refused(**kwargs: Any) -> bool:
        if kwargs["payload"]["type"] == "message":  # announced before Redis went
            return real_append_ending(**kwargs)
        return refused()

    away.setattr(publishing, "append_event", refused)
    away.setattr(publishing, "append_ending", ending_refused)
    away.setattr(runner, "sync_redis", refused)
    away.setattr(ConversationLock, "still_ours", refused)
    away.setattr(ConversationLock, "release", refused)


def _aged_and_swept(message: Message) -> list[str]:
    Message.objects.filter(run_id=message.uuid).update(
        created_at=timezone.now() - timedelta(seconds=30)
    )
    unannounced_endings_publish()
    return [e["type"] for e in _endings(message)]


def test_a_turn_that_streams_while_redis_is_away_stores_its_whole_reply(
    accepted: Accepted, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as away:
        _redis_away(away)
        turn_execute(message_id=accepted.message.pk)

    reply = Message.objects.get(run_id=accepted.message.uuid, role=Message.Role.ASSISTANT)
    assert reply.status == Message.Status.COMPLETE
    assert reply.content
    assert _endings(accepted.message) == []  # nobody could be told while Redis was away
    assert _aged_and_swept(accepted.message) == ["done"]


def test_a_turn_that_fails_while_redis_is_away_still_ends_with_its_error_reply(
    accepted: Accepted, monkeypatch: pytest.MonkeyPatch
) -> None:
    def hung_up(messages: list[Any]) -> Any:
        raise RuntimeError("the model endpoint closed the connection")

    failing = ScriptedChatModel(replies=[hung_up])
    with monkeypatch.context() as away:
        away.setattr(runner, "graph_for", lambda model: build_graph(failing))
        _redis_away(away)
        turn_execute(message_id=accepted.message.pk)

    reply = Message.objects.get(run_id=accepted.message.uuid, role=Message.Role.ASSISTANT)
    assert reply.status == Message.Status.ERROR
    assert _aged_and_swept(accepted.message) == ["error"]


def test_the_sweep_leaves_replies_that_were_announced_alone(accepted: Accepted) -> None:
    turn_execute(message_id=accepted.message.pk)
    Message.objects.filter(run_id=accepted.message.uuid).update(
        created_at=timezone.now() - timedelta(seconds=30)
    )

    assert unannounced_endings_publish() == 0
    assert [e["type"] for e in _endings(accepted.message)] == ["done"]


def test_a_run_that_failed_after_proposing_announces_its_card_and_leaves_the_ending_to_it(
    sms_sent: Accepted, people_a: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    def restarting(value: Any) -> Any:  # as the interrupt is saved
        raise OperationalError("terminating connection due to administrator command")

    with monkeypatch.context() as failing:
        failing.setattr(nodes, "interrupt", restarting)
        turn_execute(message_id=sms_sent.message.pk)

    frames = async_to_sync(frames_after_async)(
        schema=current_schema(), conversation_uuid=str(sms_sent.conversation.uuid), after=0
    )
    assert "pending" in [json.loads(f.text)["type"] for f in frames]
    assert _endings(sms_sent.message) == []
    assert not Message.objects.filter(run_id=sms_sent.message.uuid).exists()
    action = PendingAction.objects.get(conversation=sms_sent.conversation)
    decide(action, user=people_a.approver, decision="reject")
    resume_execute(action_id=str(action.id))

    assert [e["type"] for e in _endings(sms_sent.message)] == ["done"]


def test_a_resume_that_failed_mid_execution_has_its_sends_finished_by_the_next_one(
    ask: TurnRunner, people_a: People, resumes_queued: list[str]
) -> None:
    action = sms_requested(ask)
    decide(action, user=people_a.approver, decision="approve")
    # The first resume claimed the action, then failed (PostgreSQL restarting) and stored its
    # error reply before it sent anything.
    PendingAction.objects.filter(pk=action.pk).update(status=PendingAction.Status.EXECUTING)
    Message.objects.create(
        conversation=action.conversation,
        role=Message.Role.ASSISTANT,
        content="Sorry — something went wrong while answering.",
        run_id=action.id,
        status=Message.Status.ERROR,
    )

    resume_execute(action_id=str(action.id))  # the sweep's, for an action left executing

    action.refresh_from_db()
    assert action.status == PendingAction.Status.EXECUTED
    assert Message.objects.filter(run_id=action.id).count() == 1  # the reply stands


def test_a_question_its_sender_could_not_announce_is_announced_once_before_its_turn(
    accepted: Accepted,
) -> None:
    # The sender's announcement after commit failed (Redis away): nothing in the log yet.
    turn_execute(message_id=accepted.message.pk)
    turn_execute(message_id=accepted.message.pk)  # the broker's second delivery

    frames = async_to_sync(frames_after_async)(
        schema=current_schema(), conversation_uuid=str(accepted.conversation.uuid), after=0
    )
    kinds = [json.loads(f.text)["type"] for f in frames]
    assert kinds.count("message") == 1
    assert kinds[0] == "message"


class _WorkerKilled(BaseException):
    """SIGKILL, as far as the run can tell: nothing of it runs after this, not even its handlers."""


def test_a_card_proposed_by_a_worker_killed_before_its_interrupt_is_announced_by_the_redelivery(
    sms_sent: Accepted, monkeypatch: pytest.MonkeyPatch
) -> None:
    def killed(value: Any) -> Any:  # the proposal is committed; the interrupt is never saved
        raise _WorkerKilled()

    with monkeypatch.context() as dying, pytest.raises(_WorkerKilled):
        dying.setattr(nodes, "interrupt", killed)
        turn_execute(message_id=sms_sent.message.pk)
    assert PendingAction.objects.filter(conversation=sms_sent.conversation).exists()

    turn_execute(message_id=sms_sent.message.pk)  # the broker's redelivery

    frames = async_to_sync(frames_after_async)(
        schema=current_schema(), conversation_uuid=str(sms_sent.conversation.uuid), after=0
    )
    assert "pending" in [json.loads(f.text)["type"] for f in frames]
    assert _endings(sms_sent.message) == []


def _kinds(conversation_uuid: object) -> list[str]:
    frames = async_to_sync(frames_after_async)(
        schema=current_schema(), conversation_uuid=str(conversation_uuid), after=0
    )
    return [json.loads(frame.text)["type"] for frame in frames]


def _killed_before_announcing(sms_sent: Accepted, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker dies after committing the proposal and before announcing its card."""

    def killed(value: Any) -> Any:
        raise _WorkerKilled()

    with monkeypatch.context() as dying, pytest.raises(_WorkerKilled):
        dying.setattr(nodes, "interrupt", killed)
        turn_execute(message_id=sms_sent.message.pk)
    assert "pending" not in _kinds(sms_sent.conversation.uuid)


def test_the_next_message_announces_a_card_no_run_announced_before_it_is_stored(
    sms_sent: Accepted, people_a: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seen in the chaos run: the redelivered run announced the card only after the next message.
    _killed_before_announcing(sms_sent, monkeypatch)
    _lapse_reservation(sms_sent.message)

    again = message_send(
        user=people_a.staff,
        text="also, what time is assembly tomorrow?",
        conversation_uuid=str(sms_sent.conversation.uuid),
        client_id=None,
    )

    # Published by the sender before its transaction commits: the new message's own event is
    # published on commit, so after it.
    kinds = _kinds(sms_sent.conversation.uuid)
    assert again.created
    assert kinds.count("pending") == 1
    assert kinds[-1] == "pending"
    _lapse_reservation(again.message)
    turn_execute(message_id=sms_sent.message.pk)  # the broker's redelivery, after all that
    assert _kinds(sms_sent.conversation.uuid).count("pending") == 1


def test_the_sweep_announces_a_card_no_run_announced_once(
    sms_sent: Accepted, monkeypatch: pytest.MonkeyPatch
) -> None:
    _killed_before_announcing(sms_sent, monkeypatch)
    PendingAction.objects.filter(conversation=sms_sent.conversation).update(
        created_at=timezone.now() - timedelta(seconds=30)
    )

    assert unannounced_cards_publish() == 1
    assert unannounced_cards_publish() == 0  # the next sweep

    assert _kinds(sms_sent.conversation.uuid).count("pending") == 1


def test_the_sweep_in_another_tenant_neither_sees_nor_announces_the_card(
    sms_sent: Accepted, tenant_b: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    _killed_before_announcing(sms_sent, monkeypatch)
    PendingAction.objects.filter(conversation=sms_sent.conversation).update(
        created_at=timezone.now() - timedelta(seconds=30)
    )

    with tenant_context(tenant_b):
        assert unannounced_cards_publish() == 0

    assert "pending" not in _kinds(sms_sent.conversation.uuid)
    assert unannounced_cards_publish() == 1  # its own tenant's sweep still does


def test_a_card_is_announced_once_however_many_runs_of_its_turn_announce_it(
    sms_sent: Accepted,
) -> None:
    turn_execute(message_id=sms_sent.message.pk)
    turn_execute(message_id=sms_sent.message.pk)  # the broker's second delivery
    PendingAction.objects.filter(conversation=sms_sent.conversation).update(
        created_at=timezone.now() - timedelta(seconds=30)
    )

    assert unannounced_cards_publish() == 0
    assert _kinds(sms_sent.conversation.uuid).count("pending") == 1
