"""Cancel at any moment: a turn queued behind others, one starting, one streaming, one waiting
for approval. Each ends with exactly one ``done`` of status ``cancelled`` and nothing of it runs
after the cancel; a cancel with nothing to stop is answered plainly and changes nothing.

The turns run in a real Celery worker (solo pool: one turn at a time, so the others queue) and
ask a scripted OpenAI-compatible server that can hold its answer (``gate``) for as long as the
test needs a busy worker or a turn that has started but not yet streamed.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import User
from django.db.models.signals import post_save
from django.test import override_settings
from langchain_core.messages import AIMessage

from actions.models import Contact, OutboundMessage
from chat.agent.runner import CollectingEvents, cancel_request
from chat.events.log import frames_after_async
from chat.events.publishing import PublishingEvents
from chat.models import ActionEvent, Conversation, Message, PendingAction
from chat.pending_actions import ActionStateError
from chat.services.expiry import stranded_action_ids, stranded_turn_messages
from chat.services.realtime import (
    NothingToCancel,
    action_decide,
    conversation_cancel,
    message_send,
    unannounced_cards_publish,
    unannounced_endings_publish,
)
from chat.services.turns import turn_resume, turn_run, turn_start
from core.schema import current_schema
from tenants.models import Tenant
from tests.chat.conftest import People, TurnRunner
from tests.chat.doors import token_client, wait_for_reply
from tests.chat.scripted import ScriptedChatModel, tool_call
from tests.chat.stranded import EMAIL, SMS, sms_model, sms_requested
from tests.fakes.openai_server import FakeOpenAIServer, ScriptedText, ScriptedToolCall
from tests.tenants.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)

ANSWER = "The library opens at eight in the morning on weekdays and at ten on Saturdays."
LONG_ANSWER = "The library keeps long hours in term time and short ones in the holidays. " * 40


def _held_model(
    script: list[ScriptedText | ScriptedToolCall], *, token_delay: float = 0.0
) -> tuple[FakeOpenAIServer, threading.Event]:
    gate = threading.Event()
    return FakeOpenAIServer(script, token_delay=token_delay, gate=gate), gate


@pytest.fixture
def model_settings_for() -> Iterator[Any]:
    """Point the worker's configured model at a fake server for the rest of the test."""
    overrides: list[Any] = []

    def use(server: FakeOpenAIServer) -> None:
        override = override_settings(
            LLM_BASE_URL=server.base_url, LLM_MODEL="scripted-gpt", LLM_API_KEY="test-key"
        )
        override.enable()
        overrides.append(override)

    yield use
    for override in reversed(overrides):
        override.disable()


def _send(user: User, text: str) -> tuple[Conversation, Message]:
    """Send through the real use case: stored, the conversation reserved, the turn queued."""
    accepted = message_send(user=user, text=text, conversation_uuid=None, client_id=None)
    return accepted.conversation, accepted.message


def _published(conversation: Conversation) -> list[dict[str, Any]]:
    frames = async_to_sync(frames_after_async)(
        schema=current_schema(), conversation_uuid=str(conversation.uuid), after=0
    )
    return [json.loads(frame.text) for frame in frames]


def _dones(conversation: Conversation) -> list[dict[str, Any]]:
    return [f for f in _published(conversation) if f["type"] == "done"]


def _asked(server: FakeOpenAIServer, text: str) -> bool:
    """Whether any request the model server received carried ``text``."""
    return any(text in json.dumps(request["body"]) for request in server.requests)


def _wait_until(condition: Any, *, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the condition never came true")
        time.sleep(0.05)


def test_queued_turns_cancelled_behind_a_busy_worker_never_reach_the_model(
    people_a: People, tenant_a: Tenant, celery_worker_thread: None, model_settings_for: Any
) -> None:
    kept = 5
    server, gate = _held_model([ScriptedText(ANSWER) for _ in range(1 + kept)])
    with server:
        model_settings_for(server)
        _, busy = _send(people_a.staff, "What are the library's opening hours?")
        _wait_until(lambda: len(server.requests) == 1)  # the worker is now busy with it
        queued = [
            _send(people_a.staff, f"Question number {n} about the library") for n in range(10)
        ]
        cancelled, left = queued[::2], queued[1::2]
        for conversation, _ in cancelled:
            outcome = conversation_cancel(
                user=people_a.staff, conversation_uuid=str(conversation.uuid)
            )
            assert outcome.status == "cancelling"
        gate.set()
        replies = {
            message.uuid: wait_for_reply(tenant_a, run_id=message.uuid)
            for _, message in [*queued, (None, busy)]
        }

    for conversation, message in cancelled:
        reply = replies[message.uuid]
        assert reply.status == Message.Status.CANCELLED and reply.content == ""
        assert not _asked(server, message.content), "a cancelled turn never reached the model"
        assert [d["status"] for d in _dones(conversation)] == ["cancelled"]
    for conversation, message in left:
        assert replies[message.uuid].status == Message.Status.COMPLETE
        assert [d["status"] for d in _dones(conversation)] == ["complete"]
    assert replies[busy.uuid].content == ANSWER
    assert len(server.requests) == 1 + kept


def test_a_cancel_already_asked_when_the_task_starts_stores_a_cancelled_reply_unrun(
    ask: TurnRunner, people_a: People
) -> None:
    conversation = Conversation.objects.create(user=people_a.staff, title="t")
    message = Message.objects.create(
        conversation=conversation,
        role=Message.Role.USER,
        content="When does the library open?",
        sender=people_a.staff,
    )
    cancel_request(conversation=conversation, run_id=message.uuid)
    model = ScriptedChatModel(replies=[])  # any call fails the test
    events = CollectingEvents()

    reply = turn_run(conversation=conversation, message=message, events=events, model=model)

    assert reply is not None and reply.status == Message.Status.CANCELLED
    assert model.calls == []
    assert [m.status for m in events.of("done")] == [Message.Status.CANCELLED]


def test_a_turn_cancelled_while_its_model_is_still_thinking_proposes_and_sends_nothing(
    people_a: People, tenant_a: Tenant, celery_worker_thread: None, model_settings_for: Any
) -> None:
    Contact.objects.create(name="Emma Wilson", phone="+12025550111")
    server, gate = _held_model([ScriptedToolCall("send_sms", SMS)])
    with server:
        model_settings_for(server)
        conversation, message = _send(people_a.staff, "Text Emma that class moved to 3pm")
        _wait_until(lambda: len(server.requests) == 1)  # started: the model has the question
        conversation_cancel(user=people_a.staff, conversation_uuid=str(conversation.uuid))
        gate.set()
        reply = wait_for_reply(tenant_a, run_id=message.uuid)

    assert reply.status == Message.Status.CANCELLED
    assert not PendingAction.objects.exists(), "no action was proposed after the cancel"
    assert not OutboundMessage.objects.exists()
    assert [d["status"] for d in _dones(conversation)] == ["cancelled"]


def test_a_streaming_turn_stops_and_keeps_what_was_streamed_as_cancelled(
    people_a: People, tenant_a: Tenant, celery_worker_thread: None, model_settings_for: Any
) -> None:
    server = FakeOpenAIServer([ScriptedText(LONG_ANSWER, chunk_chars=4)], token_delay=0.01)
    with server:
        model_settings_for(server)
        conversation, message = _send(people_a.staff, "Tell me everything about the library")
        _wait_until(lambda: any(f["type"] == "token" for f in _published(conversation)))
        conversation_cancel(user=people_a.staff, conversation_uuid=str(conversation.uuid))
        reply = wait_for_reply(tenant_a, run_id=message.uuid)

    assert reply.status == Message.Status.CANCELLED
    assert 0 < len(reply.content) < len(LONG_ANSWER) and LONG_ANSWER.startswith(reply.content)
    dones = _dones(conversation)
    assert [d["status"] for d in dones] == ["cancelled"] and dones[0]["content"] == reply.content


def test_a_turn_awaiting_approval_is_withdrawn_and_a_later_approval_is_refused(
    ask: TurnRunner, people_a: People, tenant_a: Tenant, celery_worker_thread: None
) -> None:
    action = sms_requested(ask)

    outcome = conversation_cancel(
        user=people_a.staff, conversation_uuid=str(action.conversation.uuid)
    )
    reply = wait_for_reply(tenant_a, run_id=action.id)

    assert outcome.status == "withdrawn" and outcome.action == action
    action.refresh_from_db()
    assert action.status == PendingAction.Status.WITHDRAWN
    kinds = list(ActionEvent.objects.filter(action=action).values_list("kind", flat=True))
    assert kinds == ["proposed", "withdrawn"]
    frames = _published(action.conversation)
    cards = [f["action"]["status"] for f in frames if f["type"] == "action"]
    assert cards[0] == "withdrawn", "the approvers' cards are told"
    assert reply.status == Message.Status.CANCELLED
    assert [d["status"] for d in _dones(action.conversation)] == ["cancelled"]
    with pytest.raises(ActionStateError, match="already withdrawn"):
        action_decide(user=people_a.approver, action_id=str(action.id), decision="approve")
    assert not OutboundMessage.objects.exists()


def test_a_cancel_after_the_turn_finished_is_answered_plainly_and_sends_no_second_done(
    people_a: People, tenant_a: Tenant, celery_worker_thread: None, model_settings_for: Any
) -> None:
    server = FakeOpenAIServer([ScriptedText(ANSWER), ScriptedText(ANSWER)])
    with server:
        model_settings_for(server)
        conversation, first = _send(people_a.staff, "When does the library open?")
        wait_for_reply(tenant_a, run_id=first.uuid)

        with pytest.raises(NothingToCancel):
            conversation_cancel(user=people_a.staff, conversation_uuid=str(conversation.uuid))
        accepted = message_send(
            user=people_a.staff,
            text="And on Sundays?",
            conversation_uuid=str(conversation.uuid),
            client_id=None,
        )
        second = wait_for_reply(tenant_a, run_id=accepted.message.uuid)

    assert second.status == Message.Status.COMPLETE, "no cancel leaked onto the next turn"
    assert [d["status"] for d in _dones(conversation)] == ["complete", "complete"]


def test_a_cancelled_turn_leaves_the_next_turn_of_its_conversation_alone(
    people_a: People, tenant_a: Tenant, celery_worker_thread: None, model_settings_for: Any
) -> None:
    server, gate = _held_model([ScriptedText(LONG_ANSWER), ScriptedText(ANSWER)])
    with server:
        model_settings_for(server)
        conversation, first = _send(people_a.staff, "Tell me everything about the library")
        _wait_until(lambda: len(server.requests) == 1)
        conversation_cancel(user=people_a.staff, conversation_uuid=str(conversation.uuid))
        gate.set()
        assert wait_for_reply(tenant_a, run_id=first.uuid).status == "cancelled"
        accepted = message_send(
            user=people_a.staff,
            text="When does the library open?",
            conversation_uuid=str(conversation.uuid),
            client_id=None,
        )
        second = wait_for_reply(tenant_a, run_id=accepted.message.uuid)

    assert second.status == Message.Status.COMPLETE and second.content == ANSWER


def test_only_the_owner_may_cancel_and_another_tenant_cannot_even_see_the_conversation(
    people_a: People,
    tenant_a: Tenant,
    tenant_b: Tenant,
    celery_worker_thread: None,
    model_settings_for: Any,
) -> None:
    colleague = make_user(tenant_a, "kim")
    stranger = make_user(tenant_b, "bo")
    server, gate = _held_model([ScriptedText(ANSWER)])
    with server:
        model_settings_for(server)
        conversation, message = _send(people_a.staff, "When does the library open?")
        _wait_until(lambda: len(server.requests) == 1)
        path = f"/api/conversations/{conversation.uuid}/cancel/"
        from_colleague = token_client(tenant_a, colleague).post(path)
        with_b_token_on_a = token_client(tenant_b, stranger)
        with_b_token_on_a.defaults["HTTP_HOST"] = tenant_a.get_primary_domain().domain
        from_b_on_a = with_b_token_on_a.post(path)
        from_b_on_b = token_client(tenant_b, stranger).post(path)
        gate.set()
        reply = wait_for_reply(tenant_a, run_id=message.uuid)

    assert from_colleague.status_code == 404
    assert from_colleague.json()["error"]["code"] == "not_found"
    assert from_b_on_a.status_code == 401
    assert from_b_on_b.status_code == 404
    assert reply.status == Message.Status.COMPLETE and reply.content == ANSWER


def test_the_http_route_cancels_a_queued_turn_and_says_when_nothing_is_left_to_cancel(
    people_a: People, tenant_a: Tenant, celery_worker_thread: None, model_settings_for: Any
) -> None:
    server, gate = _held_model([ScriptedText(ANSWER)])
    api = token_client(tenant_a, people_a.staff)
    with server:
        model_settings_for(server)
        _send(people_a.staff, "What are the library's opening hours?")
        _wait_until(lambda: len(server.requests) == 1)
        conversation, queued = _send(people_a.staff, "And the canteen's?")
        path = f"/api/conversations/{conversation.uuid}/cancel/"
        cancelling = api.post(path)
        gate.set()
        reply = wait_for_reply(tenant_a, run_id=queued.uuid)
        too_late = api.post(path)

    assert cancelling.status_code == 202
    assert cancelling.json() == {"conversation": str(conversation.uuid), "status": "cancelling"}
    assert reply.status == Message.Status.CANCELLED
    assert not _asked(server, "canteen")
    assert too_late.status_code == 409
    assert too_late.json()["error"]["code"] == "nothing_to_cancel"
    assert [d["status"] for d in _dones(conversation)] == ["cancelled"]


def test_the_http_route_withdraws_the_action_a_turn_waits_on(
    ask: TurnRunner, people_a: People, tenant_a: Tenant, celery_worker_thread: None
) -> None:
    action = sms_requested(ask)
    api = token_client(tenant_a, people_a.staff)

    answer = api.post(f"/api/conversations/{action.conversation.uuid}/cancel/")
    reply = wait_for_reply(tenant_a, run_id=action.id)

    assert answer.status_code == 202
    assert answer.json() == {
        "conversation": str(action.conversation.uuid),
        "status": "withdrawn",
        "action": str(action.id),
    }
    assert reply.status == Message.Status.CANCELLED
    action.refresh_from_db()
    assert action.status == PendingAction.Status.WITHDRAWN


@contextmanager
def cancelled_as_proposed(
    message: Callable[[], Message], *, run_id: Callable[[], Any] | None = None
) -> Iterator[None]:
    """The user's cancel of the run (the turn's, unless ``run_id`` names a resume) lands the
    moment it commits a proposal, before it looks for a cancel again (the window the short
    chaos run hit)."""

    def cancel(sender: Any, instance: PendingAction, created: bool, **kwargs: Any) -> None:
        if created:
            asked = message()
            cancel_request(
                conversation=asked.conversation, run_id=run_id() if run_id else asked.uuid
            )

    post_save.connect(cancel, sender=PendingAction, weak=False)
    try:
        yield
    finally:
        post_save.disconnect(cancel, sender=PendingAction)


def test_a_cancel_landing_as_the_proposal_is_committed_withdraws_it_and_ends_the_turn_once(
    people_a: People, tenant_a: Tenant
) -> None:
    Contact.objects.create(name="Emma Wilson", phone="+12025550111")
    conversation, message, _ = turn_start(
        user=people_a.staff, text="Text Emma that class moved to 3pm", conversation_uuid=None
    )
    events = PublishingEvents(
        schema=current_schema(),
        conversation=conversation,
        run_id=message.uuid,
        reply_to=message.uuid,
    )

    with cancelled_as_proposed(lambda: message):
        reply = turn_run(
            conversation=conversation, message=message, events=events, model=sms_model()
        )

    assert reply is not None and reply.status == Message.Status.CANCELLED
    action = PendingAction.objects.get(conversation=conversation)
    assert action.status == PendingAction.Status.WITHDRAWN, (
        "the user asked to stop: not left pending"
    )
    withdrawal = ActionEvent.objects.get(action=action, kind=ActionEvent.Kind.WITHDRAWN)
    assert withdrawal.data["via"] == "cancel" and withdrawal.data["message"] == str(message.uuid)
    with pytest.raises(ActionStateError, match="already withdrawn"):
        action_decide(user=people_a.approver, action_id=str(action.id), decision="reject")
    assert stranded_action_ids(older_than_seconds=0) == [], "no sweep resumes the withdrawal"
    assert stranded_turn_messages(older_than_seconds=0) == [], "nor takes the turn for lost"
    assert unannounced_endings_publish() == 0 and unannounced_cards_publish() == 0
    endings = [f for f in _published(conversation) if f["type"] in ("done", "error")]
    assert [(f["type"], f["status"]) for f in endings] == [("done", "cancelled")]
    cards = [f["action"]["status"] for f in _published(conversation) if f["type"] == "action"]
    assert cards == ["withdrawn"]
    assert not OutboundMessage.objects.exists()


def test_a_cancel_landing_as_a_resume_proposes_the_turns_second_action_ends_the_turn_once(
    ask: TurnRunner, people_a: People, resumes_queued: list[str]
) -> None:
    Contact.objects.create(name="Emma Wilson", phone="+12025550111", email="emma@example.com")
    sms, email = tool_call("send_sms", **SMS), tool_call("send_email", **EMAIL)
    both = AIMessage("", tool_calls=[*sms.tool_calls, *email.tool_calls])
    model = ScriptedChatModel(replies=[both, AIMessage("Both are done.")])
    turn = ask("Text Emma and e-mail her about the trip", model=model)
    first = PendingAction.objects.get(conversation=turn.conversation)
    action_decide(user=people_a.approver, action_id=str(first.id), decision="approve")
    first.refresh_from_db()
    asked = Message.objects.get(conversation=turn.conversation, role=Message.Role.USER)
    events = PublishingEvents(
        schema=current_schema(),
        conversation=turn.conversation,
        run_id=first.id,
        reply_to=asked.uuid,
    )

    with cancelled_as_proposed(lambda: asked, run_id=lambda: first.id):
        reply = turn_resume(action=first, events=events, model=model)  # as the queued task would

    assert reply is not None and reply.status == Message.Status.CANCELLED
    second = PendingAction.objects.exclude(pk=first.pk).get(conversation=turn.conversation)
    assert second.status == PendingAction.Status.WITHDRAWN
    withdrawal = ActionEvent.objects.get(action=second, kind=ActionEvent.Kind.WITHDRAWN)
    assert withdrawal.data["message"] == str(asked.uuid), "named after the turn it ends"
    assert resumes_queued == [str(first.id)], "the withdrawal queues no resume of its own"
    assert stranded_action_ids(older_than_seconds=0) == []
    endings = [f for f in _published(turn.conversation) if f["type"] in ("done", "error")]
    assert [(f["type"], f["status"], f["reply_to"]) for f in endings] == [
        ("done", "cancelled", str(asked.uuid))
    ]
