"""Helpers for the stranded-approval tests: a turn that proposes an SMS, the real decision use
case (which queues the resume for the Celery worker), and what the action and its
conversation show once the worker is done."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from asgiref.sync import async_to_sync
from django.contrib.auth.models import User
from langchain_core.messages import AIMessage

from actions.models import Contact, OutboundMessage
from chat.events.log import frames_after_async
from chat.models import ActionEvent, Conversation, Message, PendingAction
from chat.pending_actions import Decision
from chat.services.realtime import action_decide
from core.schema import current_schema
from tests.chat.conftest import TurnRunner
from tests.chat.scripted import ScriptedChatModel, tool_call

SMS = {"to": ["Emma Wilson"], "body": "Class moved to 3pm"}
EMAIL = {"to": ["Emma Wilson"], "subject": "Trip", "body": "The trip leaves at 8"}
KNOWLEDGE_ANSWER = "The library opens at 8am on weekdays."


def sms_model() -> ScriptedChatModel:
    return ScriptedChatModel(replies=[tool_call("send_sms", **SMS), AIMessage("Sent.")])


def answer_model(text: str = KNOWLEDGE_ANSWER) -> ScriptedChatModel:
    return ScriptedChatModel(replies=[AIMessage(text)])


def sms_requested(ask: TurnRunner, *, conversation: Conversation | None = None) -> PendingAction:
    """Staff ask for an SMS to Emma; the turn pauses on its pending action."""
    Contact.objects.get_or_create(
        name="Emma Wilson", defaults={"phone": "+12025550111", "email": "emma@example.com"}
    )
    turn = ask("Text Emma that class moved to 3pm", model=sms_model(), conversation=conversation)
    assert turn.reply is None, "the turn pauses for approval"
    return PendingAction.objects.filter(conversation=turn.conversation).latest("created_at")


def decide(action: PendingAction, *, user: User, decision: Decision = "approve") -> None:
    """The decision as every door makes it: announced, and its resume queued after commit."""
    action_decide(user=user, action_id=str(action.id), decision=decision)


def reply_to(action: PendingAction, *, timeout: float = 60) -> Message:
    """The conversation's reply to the action's outcome, once the worker has stored it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reply = Message.objects.filter(run_id=action.id, role=Message.Role.ASSISTANT).first()
        if reply is not None:
            return reply
        time.sleep(0.2)
    action.refresh_from_db()
    raise AssertionError(f"no reply to action {action.id} (status {action.status}) in time")


@dataclass(frozen=True)
class Outcome:
    status: str
    events: list[str]
    sent_to: list[str]  # the outbound messages the action made, one entry each
    replies: list[str]  # the conversation's assistant messages, oldest first
    card: dict[str, Any]  # the action as its last published ``action`` frame shows it
    announced: list[str]  # the replies published to the conversation (``done``), once each


def outcome_of(action: PendingAction) -> Outcome:
    action.refresh_from_db()
    frames = _published(action.conversation)
    return Outcome(
        status=action.status,
        events=list(ActionEvent.objects.filter(action=action).values_list("kind", flat=True)),
        sent_to=list(
            OutboundMessage.objects.filter(action_id=action.id).values_list("to_address", flat=True)
        ),
        replies=list(
            Message.objects.filter(conversation=action.conversation, role=Message.Role.ASSISTANT)
            .order_by("created_at", "pk")
            .values_list("content", flat=True)
        ),
        card=next((f["action"] for f in reversed(frames) if _is_card_of(f, action)), {}),
        announced=list(
            {f["message"]: f["content"] for f in frames if f["type"] == "done"}.values()
        ),
    )


def sent_once_and_told_once(action: PendingAction, *, reply: Message) -> Outcome:
    """The approved SMS went to Emma exactly once and the conversation was told exactly once
    (by ``reply``), whatever else the conversation did meanwhile."""
    outcome = outcome_of(action)
    assert outcome.status == "executed"
    assert outcome.sent_to == ["+12025550111"]
    assert outcome.events == ["proposed", "approved", "executed"]
    assert outcome.card["status"] == "executed"
    assert outcome.announced == [reply.content], "one confirmation, no replayed answer"
    return outcome


def _is_card_of(frame: dict[str, Any], action: PendingAction) -> bool:
    return frame["type"] == "action" and frame["action"]["id"] == str(action.id)


def _published(conversation: Conversation) -> list[dict[str, Any]]:
    """What watchers of the conversation were sent (the worker publishes; turns run in the test
    itself collect their events instead)."""
    frames = async_to_sync(frames_after_async)(
        schema=current_schema(), conversation_uuid=str(conversation.uuid), after=0
    )
    return [json.loads(frame.text) for frame in frames]
