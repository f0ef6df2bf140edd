"""What the worker and the use cases publish: a turn's events (``PublishingEvents``, tokens
coalesced into frames), a stored user message, an action's decision."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

import redis
from django.conf import settings

from chat.events.log import append_ending, append_event
from chat.events.payloads import action_payload, done_payload, message_payload
from chat.models import Conversation, Message, PendingAction
from core import tracing
from tenants.names import action_announced_key, message_announced_key, turn_ending_key

logger = logging.getLogger(__name__)


class PublishingEvents:
    """``TurnEvents`` for a worker: every event numbered, stored and published. ``done`` carries
    the full text, so coalescing loses nothing.

    Tokens are coalesced into frames. The first token goes out at once. When the model's
    stream is read in batches (chat/agent/llm.py reads it once per ``CHAT_TOKEN_FLUSH_MS``),
    the reader calls ``flush`` after each batch: one frame per read, every token of it, sent
    the moment it was read. Otherwise (the offline model, a test's model) a token goes out
    when the last frame is at least ``CHAT_TOKEN_FLUSH_MS`` old and waits in the buffer for the
    next token or the next other event if not. Either way a conversation gets at most about
    one frame per interval (the cost of a frame, in the worker and in every web process
    relaying it, is paid per frame, not per token). Every event leaves in one Redis call
    (append and publish); those of actions also go to the approvers' feed, and wait for it.

    A turn's ending (``done``, ``error``) is published once per run (``append_ending``): a
    redelivered or re-queued copy that finds the reply stored sends nothing new. ``reply_to``
    is the user message the run answers, named by its ``done`` and its ``error``.
    """

    def __init__(
        self,
        *,
        schema: str,
        conversation: Conversation,
        run_id: uuid.UUID | None = None,
        reply_to: uuid.UUID | None = None,
    ) -> None:
        self.schema = schema
        self.conversation_uuid = str(conversation.uuid)
        self.run_id = run_id
        self.reply_to = reply_to
        self._buffer: list[str] = []
        self._flushed_at = -float("inf")
        self._reads_batched = False  # the reader calls ``flush`` after each read
        self._frames_lost = 0

    def _emit(self, payload: dict[str, Any]) -> None:
        # A span per event but tokens (a token frame is the hot path; they are many, and the
        # model call's span covers them).
        with tracing.span(f"chat.publish {payload['type']}"):
            append_event(
                schema=self.schema, conversation_uuid=self.conversation_uuid, payload=payload
            )

    def _emit_token(self, payload: dict[str, Any]) -> None:
        """A token frame (a separate hook: subclasses do less per frame than per event)."""
        append_event(schema=self.schema, conversation_uuid=self.conversation_uuid, payload=payload)

    def flush(self) -> None:
        """The model's stream reader has handed over a read: send it as one frame."""
        self._reads_batched = True
        self._send_buffered()

    def _send_buffered(self) -> None:
        if self._buffer:
            text, self._buffer = "".join(self._buffer), []
            self._flushed_at = time.monotonic()
            self._lossy(lambda: self._emit_token({"type": "token", "content": text}))

    def _lossy(self, send: Callable[[], None]) -> None:
        """Send a frame the turn can do without: a token frame (``done`` carries the whole
        text) or a stage. While Redis is away (restarting, after its clients' retries) it is
        lost and the turn goes on, instead of failing a turn that only the watchers' feed
        lost; its reply is stored and its ending announced once Redis is back."""
        try:
            send()
        except redis.RedisError:
            if not self._frames_lost:
                logger.warning(
                    "Redis is away: this turn's token and stage frames are lost until it is back",
                    exc_info=True,
                )
            self._frames_lost += 1

    def token(self, content: str) -> None:
        self._buffer.append(content)
        if self._reads_batched:
            return
        if (time.monotonic() - self._flushed_at) * 1000 >= settings.CHAT_TOKEN_FLUSH_MS:
            self._send_buffered()

    def status(self, stage: str) -> None:
        self._send_buffered()
        self._lossy(lambda: self._emit({"type": "status", "stage": stage}))

    def pending(self, action: PendingAction) -> None:
        """An action's card, once per action however many runs announce it."""
        self._send_buffered()
        self._emit_once(
            {"type": "pending", "action": action_payload(action, full=True)},
            once_key=action_announced_key(self.schema, action.id),
        )

    def action(self, action: PendingAction) -> None:
        self._send_buffered()
        _announce_until_current(action, self._emit)

    def done(self, message: Message) -> None:
        self._send_buffered()
        payload = done_payload(message)
        trace_id = tracing.current_trace_id()
        if trace_id is not None:  # where to find this turn in the tracing backend
            payload["trace_id"] = trace_id
        if self.reply_to is not None:
            payload["reply_to"] = str(self.reply_to)
        self._emit_ending(payload)

    def error(self, code: str, message: str) -> None:
        self._send_buffered()
        payload: dict[str, Any] = {"type": "error", "code": code, "message": message}
        if self.reply_to is not None:
            payload["reply_to"] = str(self.reply_to)
        self._emit_ending(payload)

    def _emit_ending(self, payload: dict[str, Any]) -> None:
        if self.run_id is None:  # a sink that runs no turn of its own: nothing to key by
            self._emit(payload)
            return
        self._emit_once(payload, once_key=turn_ending_key(self.schema, self.run_id))

    def _emit_once(self, payload: dict[str, Any], *, once_key: str) -> None:
        with tracing.span(f"chat.publish {payload['type']}"):
            append_ending(
                schema=self.schema,
                conversation_uuid=self.conversation_uuid,
                payload=payload,
                once_key=once_key,
            )


def publish_message(*, schema: str, message: Message) -> None:
    """A stored user message, announced to everyone watching its conversation, once however
    often this is called: the sender announces it once committed, and the worker again before
    its turn runs, in case Redis was away at that moment (seen in the chaos run: a question
    stored and answered, never in its conversation's log)."""
    append_ending(
        schema=schema,
        conversation_uuid=str(message.conversation.uuid),
        payload=message_payload(message),
        once_key=message_announced_key(schema, message.uuid),
    )


def publish_pending(*, schema: str, action: PendingAction) -> bool:
    """An undecided action's card, announced to its conversation (and the approvers) unless it
    was before (``PublishingEvents.pending``, same key); whether this call published it."""
    return append_ending(
        schema=schema,
        conversation_uuid=str(action.conversation.uuid),
        payload={"type": "pending", "action": action_payload(action, full=True)},
        once_key=action_announced_key(schema, action.id),
    )


def publish_action(*, schema: str, action: PendingAction) -> None:
    """An action's decision, or a change in its recipients' delivery, announced to everyone
    watching its conversation (and the tenant's approvers)."""
    conversation_uuid = str(action.conversation.uuid)

    def emit(payload: dict[str, Any]) -> None:
        append_event(schema=schema, conversation_uuid=conversation_uuid, payload=payload)

    _announce_until_current(action, emit)


# How often one announcer appends a newer card before leaving the rest to the next change's own
# announcer (every change of an action or of a delivery is announced by whoever made it).
_CARD_REREADS = 3


def _announce_until_current(action: PendingAction, emit: Callable[[dict[str, Any]], None]) -> None:
    """Append the action's card, then read the action again and append the newer card while it
    changed meanwhile. Several processes announce one action (the worker that finished it, the
    one that delivered a message of it, the approver's request), and frames are ordered by when
    they are appended, not when their action was read: a card read just before the action was
    finished could land after the finished one and stay on every page (the killed-worker test
    once ended with 'executing' after 'executed'). Whoever appends a stale card reads again
    after appending it, so the last card appended is the current one."""
    payload = action_payload(action, full=False)
    for _ in range(_CARD_REREADS):
        emit({"type": "action", "action": payload})
        current = PendingAction.objects.filter(pk=action.pk).first()
        if current is None:
            return
        fresh = action_payload(current, full=False)
        if fresh == payload:
            return
        payload = fresh


def publish_turn_error(*, schema: str, message: Message) -> None:
    """The ``error`` event of a turn that ended without being run (its task was lost too often,
    chat/services/realtime.py ``stranded_turns_requeue``), as a failed run sends it: once, as
    the run's one ending, naming the message it ends."""
    append_ending(
        schema=schema,
        conversation_uuid=str(message.conversation.uuid),
        payload={
            "type": "error",
            "code": "agent_error",
            "message": "the reply to this message was lost; send it again",
            "reply_to": str(message.uuid),
        },
        once_key=turn_ending_key(schema, message.uuid),
    )


def publish_reply_ending(*, schema: str, reply: Message, reply_to: uuid.UUID | None) -> bool:
    """The ending of a stored reply whose run could not publish it (Redis went away between
    storing the reply and announcing it): its ``done``, or the ``error`` of an error reply, as
    the run would have sent it and under the run's key, so at most once however many try.
    Whether this call published it."""
    if reply.run_id is None:  # stored by no run: nothing to key its ending by
        return False
    payload: dict[str, Any]
    if reply.status == Message.Status.ERROR:
        payload = {"type": "error", "code": "agent_error", "message": "the assistant failed"}
    else:
        payload = done_payload(reply)
    if reply_to is not None:
        payload["reply_to"] = str(reply_to)
    return append_ending(
        schema=schema,
        conversation_uuid=str(reply.conversation.uuid),
        payload=payload,
        once_key=turn_ending_key(schema, reply.run_id),
    )
