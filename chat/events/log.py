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

import concurrent.futures
import json
import logging
from collections.abc import AsyncIterator, Iterable
from typing import Any

from django.conf import settings

from chat.events.publisher import publisher
from chat.live import LiveEvent
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

# The same, once per ``KEYS[3]`` (a run's ending): appended only by whoever sets that key, so
# a second copy of a run never publishes a second ending. Returns 0 when it was set before.
_APPEND_ONCE = (
    """
if not redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[3]) then return 0 end
"""
    + _APPEND
)

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


_PUBLISH_TIMEOUT_SECONDS = 10


def append_event(*, schema: str, conversation_uuid: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Number, store and publish one event; returns it with ``conversation`` and ``seq``."""
    event, sends = append_event_nowait(
        schema=schema, conversation_uuid=conversation_uuid, payload=payload
    )
    for send in sends:
        send.result(timeout=_PUBLISH_TIMEOUT_SECONDS)
    return event


def append_ending(
    *, schema: str, conversation_uuid: str, payload: dict[str, Any], once_key: str
) -> bool:
    """Number, store and publish a turn's ending unless an ending under ``once_key`` (the run's,
    ``tenants.names.turn_ending_key``) was published before; whether this call published it.
    Any event published once per key goes this way (a user message's, ``publish_message``; an
    action's card, ``publish_pending``, which also goes to the approvers' feed, as
    ``append_event``'s do). Check and append are one Lua call: there is no moment where one is
    done and not the other."""
    seq_key, stream_key = _keys(schema, conversation_uuid)
    event = {**payload, "conversation": conversation_uuid}
    seq = int(
        redis_script(_APPEND_ONCE)(
            keys=[seq_key, stream_key, once_key],
            args=[
                json.dumps(event, ensure_ascii=False),
                settings.CHAT_EVENT_LOG_MAX,
                settings.CHAT_EVENT_LOG_TTL_SECONDS,
                event["type"],
            ],
        )
    )
    if seq > 0:
        for send in _approvals_sends(schema, {**event, "seq": seq}):
            send.result(timeout=_PUBLISH_TIMEOUT_SECONDS)
    return seq > 0


def ending_published(*, once_key: str) -> bool:
    """Whether an ending was published under ``once_key`` (``append_ending``)."""
    return bool(sync_redis().exists(once_key))


def endings_published(*, once_keys: list[str]) -> list[bool]:
    """``ending_published`` for each key, in one round trip (a sweep asks about many)."""
    pipeline = sync_redis().pipeline(transaction=False)
    for key in once_keys:
        pipeline.exists(key)
    return [bool(found) for found in pipeline.execute()]


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
    return event, _approvals_sends(schema, event)


def _approvals_sends(schema: str, event: dict[str, Any]) -> list[concurrent.futures.Future[None]]:
    """An action's event also goes to the tenant's approvers (their inbox feed)."""
    if event["type"] not in _APPROVAL_EVENTS:
        return []
    message = {"type": "approvals.event", "event": event}
    send = publisher.group_send(approvals_group(schema), message)
    send.add_done_callback(_log_failed_publication)
    return [send]


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


async def last_seq_async(*, schema: str, conversation_uuid: str) -> int:
    seq_key, _ = _keys(schema, conversation_uuid)
    return int(await async_redis().get(seq_key) or 0)


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
