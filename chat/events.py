"""The conversation event log: numbered, replayable, published live (DESIGN.md §6).

Every event of a conversation gets the next ``seq`` (one Redis INCR) and is appended to a capped
Redis Stream whose entry id *is* the seq, in the same Lua call, so numbering and storage never
disagree. It is then published to the conversation's channel-layer group. A reader that
(re)subscribes with ``after=N`` gets ``XRANGE (N+1)-0 +``, then live events; a live event whose seq
it has already seen is dropped, and a gap (a frame lost to a full channel) is filled from the log.

Keys and group names are built here from the tenant schema and the conversation uuid only.
"""

from __future__ import annotations

import asyncio
import functools
import json
import threading
import time
from collections.abc import AsyncIterator, Iterable
from typing import Any

import redis
from channels.layers import get_channel_layer
from django.conf import settings

from chat.models import Conversation, Message, PendingAction

_APPEND = """
local seq = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], seq .. '-1', 'e', ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return seq
"""


def _keys(schema: str, conversation_uuid: str) -> tuple[str, str]:
    base = f"cs:{schema}:conv:{conversation_uuid}"
    return f"{base}:seq", f"{base}:events"


def conversation_group(schema: str, conversation_uuid: str) -> str:
    """Channel-layer group of one conversation, prefixed by the tenant schema."""
    return f"{schema}.conv.{conversation_uuid}"


def approvals_group(schema: str) -> str:
    """Everyone who may decide actions in a tenant hears of new and decided actions here."""
    return f"{schema}.approvals"


_APPROVAL_EVENTS = frozenset({"pending", "action"})


def _redis() -> redis.Redis:
    # One client (and connection pool) per process: this runs for every streamed event.
    return _client_for(settings.REDIS_URL)


@functools.lru_cache(maxsize=4)
def _client_for(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, decode_responses=True)


class _Publisher:
    """One event loop thread per process for channel-layer sends from sync code (workers).

    ``async_to_sync`` per event would build a loop and a Redis pool each time; one long-lived
    loop keeps one pool. Each send is awaited, so a conversation's events stay in order.
    """

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._loop.is_closed():
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, daemon=True, name="cs-publisher").start()
                self._loop = loop
            return self._loop

    def group_send(self, group: str, message: dict[str, Any]) -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            self._send(layer, group, message)
        except redis.exceptions.ConnectionError:
            # The pool is long-lived: after Redis restarts (or a proxy drops idle connections)
            # its first connection is dead. The failed one is dropped; the retry reconnects.
            self._send(layer, group, message)

    def _send(self, layer: Any, group: str, message: dict[str, Any]) -> None:
        future = asyncio.run_coroutine_threadsafe(
            layer.group_send(group, message), self._ensure_loop()
        )
        future.result(timeout=10)


_publisher = _Publisher()
_script_lock = threading.Lock()
_scripts: dict[str, Any] = {}


def _append_script(client: redis.Redis) -> Any:
    with _script_lock:
        key = settings.REDIS_URL
        if key not in _scripts:
            _scripts[key] = client.register_script(_APPEND)
        return _scripts[key]


def append_event(*, schema: str, conversation_uuid: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Number, store and publish one event; returns it with ``conversation`` and ``seq``."""
    client = _redis()
    seq_key, stream_key = _keys(schema, conversation_uuid)
    event = {**payload, "conversation": conversation_uuid}
    seq = int(
        _append_script(client)(
            keys=[seq_key, stream_key],
            args=[
                json.dumps(event, ensure_ascii=False),
                settings.CHAT_EVENT_LOG_MAX,
                settings.CHAT_EVENT_LOG_TTL_SECONDS,
            ],
        )
    )
    event["seq"] = seq
    _publisher.group_send(
        conversation_group(schema, conversation_uuid),
        {"type": "conversation.event", "event": event},
    )
    if event["type"] in _APPROVAL_EVENTS:
        _publisher.group_send(approvals_group(schema), {"type": "approvals.event", "event": event})
    return event


def _decode(entries: Iterable[tuple[Any, Any]] | None) -> list[dict[str, Any]]:
    events = []
    for entry_id, fields in entries or []:
        event = json.loads(fields["e"])
        event["seq"] = int(str(entry_id).split("-")[0])
        events.append(event)
    return events


def events_after(
    *, schema: str, conversation_uuid: str, after: int, until: int | None = None
) -> list[dict[str, Any]]:
    """Stored events with ``after < seq`` (and ``seq <= until``), in order."""
    _, stream_key = _keys(schema, conversation_uuid)
    end = f"{until}-1" if until is not None else "+"
    return _decode(_redis().xrange(stream_key, min=f"{after + 1}-0", max=end))


async def events_after_async(
    *, schema: str, conversation_uuid: str, after: int, until: int | None = None
) -> list[dict[str, Any]]:
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(settings.REDIS_URL, decode_responses=True)
    try:
        _, stream_key = _keys(schema, conversation_uuid)
        end = f"{until}-1" if until is not None else "+"
        return _decode(await client.xrange(stream_key, min=f"{after + 1}-0", max=end))
    finally:
        await client.aclose()


async def follow_events(
    *, schema: str, conversation_uuid: str, after: int, block_seconds: float = 15.0
) -> AsyncIterator[dict[str, Any] | None]:
    """Stored events after ``after``, then each new one as it is appended (XREAD BLOCK on one
    connection). Yields None when ``block_seconds`` pass without an event (for keep-alives)."""
    import redis.asyncio as aioredis

    _, stream_key = _keys(schema, conversation_uuid)
    client = aioredis.Redis.from_url(
        settings.REDIS_URL, decode_responses=True, socket_timeout=block_seconds + 10
    )
    try:
        for event in _decode(await client.xrange(stream_key, min=f"{after + 1}-0", max="+")):
            after = event["seq"]
            yield event
        while True:
            reply: Any = await client.xread(
                {stream_key: f"{after}-1"}, block=int(block_seconds * 1000)
            )
            if not reply:
                yield None
                continue
            for event in _decode(reply[0][1]):
                after = event["seq"]
                yield event
    finally:
        await client.aclose()


def last_seq(*, schema: str, conversation_uuid: str) -> int:
    seq_key, _ = _keys(schema, conversation_uuid)
    return int(_redis().get(seq_key) or 0)


# -- the payloads of DESIGN.md §6 ---------------------------------------------------------------


def action_payload(action: PendingAction, *, full: bool) -> dict[str, Any]:
    base = {"id": str(action.id), "tool": action.tool, "status": action.status}
    if not full:
        return {
            **base,
            "result": action.result or ({"error": action.error} if action.error else {}),
        }
    return {
        **base,
        "description": action.description,
        "arguments": action.arguments,
        "requested_by": action.requested_by.get_username(),
        "created_at": action.created_at.isoformat(),
    }


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
    """``TurnEvents`` for a worker: tokens coalesced every ``CHAT_TOKEN_FLUSH_MS``, every event
    numbered, stored and published. ``done`` carries the full text, so coalescing loses nothing."""

    def __init__(self, *, schema: str, conversation: Conversation) -> None:
        self.schema = schema
        self.conversation_uuid = str(conversation.uuid)
        self._buffer: list[str] = []
        self._buffered_since = 0.0

    def _emit(self, payload: dict[str, Any]) -> None:
        append_event(schema=self.schema, conversation_uuid=self.conversation_uuid, payload=payload)

    def flush(self) -> None:
        if self._buffer:
            text, self._buffer = "".join(self._buffer), []
            self._emit({"type": "token", "content": text})

    def token(self, content: str) -> None:
        if not self._buffer:
            self._buffered_since = time.monotonic()
        self._buffer.append(content)
        if (time.monotonic() - self._buffered_since) * 1000 >= settings.CHAT_TOKEN_FLUSH_MS:
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


def publish_action(*, schema: str, action: PendingAction) -> None:
    """An action's decision, announced to everyone watching its conversation."""
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
    newest = _decode(_redis().xrevrange(stream_key, max="+", min="-", count=scan))
    for event in newest:
        if event.get("type") in _SETTLED_TYPES:
            return int(event["seq"])
    if newest:
        return max(0, int(newest[-1]["seq"]) - 1)
    return last_seq(schema=schema, conversation_uuid=conversation_uuid)
