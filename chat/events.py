"""The conversation event log: numbered, replayable, published live (DESIGN.md §6).

Every event of a conversation gets the next ``seq`` (one Redis INCR), is appended to a capped
Redis Stream whose entry id *is* the seq, and is published on the pub/sub channel of the same
name, all in one Lua call, so numbering, storage and publication never disagree. The stored and
published text is the frame a socket sends (``seq`` included), so web processes relay it without
decoding it (``chat.live``). A reader that (re)subscribes with ``after=N`` gets
``XRANGE (N+1)-0 +``, then live events; a live event whose seq it has already seen is dropped,
and a gap is filled from the log.

Events of pending and decided actions also go to the tenant's approvers' channel-layer group
(the inbox feed), which is low volume. Keys and group names come from ``tenants.names``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Iterable
from typing import Any

import redis
from channels.layers import get_channel_layer
from django.conf import settings

from actions.selectors import action_deliveries
from chat.argument_changes import argument_changes
from chat.live import LiveEvent
from chat.models import Conversation, Message, PendingAction
from chat.selectors import action_edit
from core.redis_clients import async_redis, redis_script, sync_redis
from tenants.names import (
    approvals_group,
    conversation_events_key,
    conversation_seq_key,
)

logger = logging.getLogger(__name__)

# ARGV: the event as a JSON object without seq, the log's cap, its TTL, the event's type. The
# frame is that object with "seq" spliced in first; the channel message is "<seq> <type> <frame>".
_APPEND = """
local seq = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
local frame = '{"seq":' .. seq .. ',' .. string.sub(ARGV[1], 2)
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], seq .. '-1', 'e', frame, 't', ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('PUBLISH', KEYS[2], seq .. ' ' .. ARGV[4] .. ' ' .. frame)
return seq
"""

# Client-given ``after`` values are below this: a seq is a Redis stream id's first part (an
# unsigned 64-bit integer, and ``after + 1`` must still be one), and PostgreSQL's bigint.
MAX_SEQ = 2**63


def _keys(schema: str, conversation_uuid: str) -> tuple[str, str]:
    """The seq counter, and the log (whose name is also the live channel's)."""
    return (
        conversation_seq_key(schema, conversation_uuid),
        conversation_events_key(schema, conversation_uuid),
    )


_APPROVAL_EVENTS = frozenset({"pending", "action"})


class _Publisher:
    """One event loop thread per process for channel-layer sends from sync code (workers).

    ``async_to_sync`` per event would build a loop and a Redis pool each time; one long-lived
    loop keeps one pool. Sends to one group go out in the order they were submitted (each waits
    for the previous one to that group); sends to different groups overlap. ``group_send``
    returns at once with a future, so a streaming worker thread goes back to reading the model
    instead of waiting two Redis round trips per frame (see ``PublishingEvents``).
    """

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        # group → the latest send to it (only touched on the loop's thread)
        self._tails: dict[str, asyncio.Future[None]] = {}

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._loop.is_closed():
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, daemon=True, name="cs-publisher").start()
                self._loop = loop
            return self._loop

    def group_send(self, group: str, message: dict[str, Any]) -> concurrent.futures.Future[None]:
        return asyncio.run_coroutine_threadsafe(
            self._send_in_order(group, message), self._ensure_loop()
        )

    async def _send_in_order(self, group: str, message: dict[str, Any]) -> None:
        # Coroutines submitted from threads start in submission order (call_soon_threadsafe is
        # FIFO), so this first step, which chains the send behind the previous one, is ordered.
        previous = self._tails.get(group)
        current = asyncio.ensure_future(self._send_after(previous, group, message))
        self._tails[group] = current
        try:
            await current
        finally:
            if self._tails.get(group) is current:
                del self._tails[group]

    @staticmethod
    async def _send_after(
        previous: asyncio.Future[None] | None, group: str, message: dict[str, Any]
    ) -> None:
        if previous is not None:
            # The previous send's failure is its own (its caller sees it); ordering is all here.
            await asyncio.gather(previous, return_exceptions=True)
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            await layer.group_send(group, message)
        except redis.exceptions.ConnectionError:
            # The pool is long-lived: after Redis restarts (or a proxy drops idle connections)
            # its first connection is dead. The failed one is dropped; the retry reconnects.
            await layer.group_send(group, message)


_publisher = _Publisher()


_PUBLISH_TIMEOUT_SECONDS = 10


def append_event(*, schema: str, conversation_uuid: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Number, store and publish one event; returns it with ``conversation`` and ``seq``."""
    event, sends = append_event_nowait(
        schema=schema, conversation_uuid=conversation_uuid, payload=payload
    )
    for send in sends:
        send.result(timeout=_PUBLISH_TIMEOUT_SECONDS)
    return event


def append_event_nowait(
    *, schema: str, conversation_uuid: str, payload: dict[str, Any]
) -> tuple[dict[str, Any], list[concurrent.futures.Future[None]]]:
    """Number, store and publish one event on its conversation's channel; returns the event and
    the approvers' feed publications still in flight (none for most events; a failure is
    logged)."""
    seq_key, stream_key = _keys(schema, conversation_uuid)
    event = {**payload, "conversation": conversation_uuid}
    seq = int(
        redis_script(_APPEND)(
            keys=[seq_key, stream_key],
            args=[
                json.dumps(event, ensure_ascii=False),
                settings.CHAT_EVENT_LOG_MAX,
                settings.CHAT_EVENT_LOG_TTL_SECONDS,
                event["type"],
            ],
        )
    )
    event["seq"] = seq
    sends = []
    if event["type"] in _APPROVAL_EVENTS:
        sends.append(
            _publisher.group_send(
                approvals_group(schema), {"type": "approvals.event", "event": event}
            )
        )
    for send in sends:
        send.add_done_callback(_log_failed_publication)
    return event, sends


def _log_failed_publication(send: concurrent.futures.Future[None]) -> None:
    if not send.cancelled() and send.exception() is not None:
        logger.warning("live publication of an event failed: %r", send.exception())


def _decode(entries: Iterable[tuple[Any, Any]] | None) -> list[dict[str, Any]]:
    events = []
    for entry_id, fields in entries or []:
        event = json.loads(fields["e"])
        event["seq"] = int(str(entry_id).split("-")[0])  # entries stored before seq was inside
        events.append(event)
    return events


def _frames(entries: Iterable[tuple[Any, Any]] | None) -> list[LiveEvent]:
    frames = []
    for entry_id, fields in entries or []:
        seq = int(str(entry_id).split("-")[0])
        if "t" in fields:
            frames.append(LiveEvent(seq=seq, type=fields["t"], text=fields["e"]))
        else:  # stored before frames were stored whole (a log lives CHAT_EVENT_LOG_TTL_SECONDS)
            event = {**json.loads(fields["e"]), "seq": seq}
            frames.append(LiveEvent(seq, event["type"], json.dumps(event, ensure_ascii=False)))
    return frames


def live_channel(*, schema: str, conversation_uuid: str) -> str:
    """The pub/sub channel a conversation's events are published on (``chat.live``)."""
    return _keys(schema, conversation_uuid)[1]


async def frames_after_async(
    *, schema: str, conversation_uuid: str, after: int, until: int | None = None
) -> list[LiveEvent]:
    """The stored events after seq ``after`` (up to ``until``), as the frames sockets send."""
    _, stream_key = _keys(schema, conversation_uuid)
    end = f"{until}-1" if until is not None else "+"
    return _frames(await async_redis().xrange(stream_key, min=f"{after + 1}-0", max=end))


async def follow_events(
    *, schema: str, conversation_uuid: str, after: int, block_seconds: float = 15.0
) -> AsyncIterator[dict[str, Any] | None]:
    """Stored events after ``after``, then each new one as it is appended (XREAD BLOCK). Yields
    None when ``block_seconds`` pass without an event (for keep-alives). Each blocking read takes
    a connection of the loop's pool for its wait and gives it back."""
    _, stream_key = _keys(schema, conversation_uuid)
    client = async_redis()
    for event in _decode(await client.xrange(stream_key, min=f"{after + 1}-0", max="+")):
        after = event["seq"]
        yield event
    while True:
        reply: Any = await client.xread({stream_key: f"{after}-1"}, block=int(block_seconds * 1000))
        if not reply:
            yield None
            continue
        for event in _decode(reply[0][1]):
            after = event["seq"]
            yield event


def last_seq(*, schema: str, conversation_uuid: str) -> int:
    seq_key, _ = _keys(schema, conversation_uuid)
    return int(sync_redis().get(seq_key) or 0)


# -- the payloads of DESIGN.md §6 ---------------------------------------------------------------


def action_payload(action: PendingAction, *, full: bool) -> dict[str, Any]:
    base = {"id": str(action.id), "tool": action.tool, "status": action.status}
    if not full:
        return {
            **base,
            "result": action.result or ({"error": action.error} if action.error else {}),
            "edited": edit_payload(action),
            "deliveries": deliveries_payload(action),
        }
    return {
        **base,
        "description": action.description,
        "arguments": action.arguments,
        "requested_by": action.requested_by.get_username(),
        "created_at": action.created_at.isoformat(),
    }


def edit_payload(action: PendingAction) -> dict[str, Any] | None:
    """Who edited the arguments before approving, and the changed fields only; None if no edit."""
    edited = action_edit(action=action)
    if edited is None:
        return None
    changes = argument_changes(edited.data.get("before") or {}, edited.data.get("after") or {})
    if not changes:  # normalised back to the proposal: nothing to show (as on the card)
        return None
    return {
        "by": edited.actor.get_username() if edited.actor else None,
        "at": edited.at.isoformat(),
        "changes": [change.as_payload() for change in changes],
    }


def deliveries_payload(action: PendingAction) -> list[dict[str, Any]]:
    """One entry per recipient of a message action (queued → sent | failed, with the provider's
    reason); empty for other tools and before the action ran."""
    if action.status not in PendingAction.APPROVED_SINCE:
        return []
    return [
        {
            "id": str(message.uuid),
            "to": message.to_address,
            "contact": message.contact.name if message.contact else None,
            "status": message.status,
            "error": message.error,
        }
        for message in action_deliveries(action_id=action.id)
    ]


def done_payload(message: Message) -> dict[str, Any]:
    return {
        "type": "done",
        "message": str(message.uuid),
        "content": message.content,
        "citations": message.citations,
        "usage": message.usage,
        "status": message.status,
    }


class PublishingEvents:
    """``TurnEvents`` for a worker: every event numbered, stored and published. ``done`` carries
    the full text, so coalescing loses nothing.

    Tokens are coalesced into frames: a token goes out at once when the last frame is at least
    ``CHAT_TOKEN_FLUSH_MS`` old, otherwise it waits in the buffer for the next token or the next
    other event. So the first token, and every token of a model slower than one per interval, go
    out at once, and a fast model sends at most one frame per interval (the cost of a frame, in
    the worker and in every web process relaying it, is paid per frame, not per token). Every
    event leaves in one Redis call (append and publish); those of actions also go to the
    approvers' feed, and wait for it.
    """

    def __init__(self, *, schema: str, conversation: Conversation) -> None:
        self.schema = schema
        self.conversation_uuid = str(conversation.uuid)
        self._buffer: list[str] = []
        self._flushed_at = -float("inf")

    def _emit(self, payload: dict[str, Any]) -> None:
        append_event(schema=self.schema, conversation_uuid=self.conversation_uuid, payload=payload)

    def _emit_token(self, payload: dict[str, Any]) -> None:
        """A token frame (a separate hook: subclasses do less per frame than per event)."""
        append_event(schema=self.schema, conversation_uuid=self.conversation_uuid, payload=payload)

    def flush(self) -> None:
        if self._buffer:
            text, self._buffer = "".join(self._buffer), []
            self._flushed_at = time.monotonic()
            self._emit_token({"type": "token", "content": text})

    def token(self, content: str) -> None:
        self._buffer.append(content)
        if (time.monotonic() - self._flushed_at) * 1000 >= settings.CHAT_TOKEN_FLUSH_MS:
            self.flush()

    def status(self, stage: str) -> None:
        self.flush()
        self._emit({"type": "status", "stage": stage})

    def pending(self, action: PendingAction) -> None:
        self.flush()
        self._emit({"type": "pending", "action": action_payload(action, full=True)})

    def action(self, action: PendingAction) -> None:
        self.flush()
        self._emit({"type": "action", "action": action_payload(action, full=False)})

    def done(self, message: Message) -> None:
        self.flush()
        self._emit(done_payload(message))

    def error(self, code: str, message: str) -> None:
        self.flush()
        self._emit({"type": "error", "code": code, "message": message})


def message_payload(message: Message) -> dict[str, Any]:
    """A stored user message, so every tab watching the conversation shows the question."""
    return {
        "type": "message",
        "message": str(message.uuid),
        "role": message.role,
        "text": message.content,
        "created_at": message.created_at.isoformat(),
    }


def publish_message(*, schema: str, message: Message) -> None:
    """A stored user message, announced to everyone watching its conversation. Not waited
    for: the event is stored when this returns, and a reader that misses it live refills it
    from the log."""
    append_event_nowait(
        schema=schema,
        conversation_uuid=str(message.conversation.uuid),
        payload=message_payload(message),
    )


def publish_action(*, schema: str, action: PendingAction) -> None:
    """An action's decision, or a change in its recipients' delivery, announced to everyone
    watching its conversation (and the tenant's approvers)."""
    append_event(
        schema=schema,
        conversation_uuid=str(action.conversation.uuid),
        payload={"type": "action", "action": action_payload(action, full=False)},
    )


# Events a page rendered from the database already shows; a page subscribes after the last of
# them, so a reload mid-turn replays the running turn's tokens and nothing older.
_SETTLED_TYPES = frozenset({"done", "pending", "action", "error"})


def replay_start(*, schema: str, conversation_uuid: str, scan: int = 1000) -> int:
    """The ``after`` a freshly rendered page should subscribe with: the seq of the newest
    settled event (its effect is in the database), so whatever follows it — the tokens of a
    turn still running — is replayed. Duplicates are harmless: the page keys by message and
    action ids."""
    _, stream_key = _keys(schema, conversation_uuid)
    newest = _decode(sync_redis().xrevrange(stream_key, max="+", min="-", count=scan))
    for event in newest:
        if event.get("type") in _SETTLED_TYPES:
            return int(event["seq"])
    if newest:
        return max(0, int(newest[-1]["seq"]) - 1)
    return last_seq(schema=schema, conversation_uuid=conversation_uuid)
