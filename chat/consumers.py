"""The WebSocket door of DESIGN.md §6 (docs/protocol.md).

The connection arrives tenant-resolved and authenticated by
``tenants.asgi.TenantWebSocketMiddleware`` (``scope["tenant"]``, ``scope["user"]``). This consumer
parses frames, calls the same services as the HTTP API, and turns their domain exceptions into
``error`` frames whose code comes from ``chat.errors.ERRORS``, the table the HTTP API answers
from too. A bad frame never closes the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import redis
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth.models import User

from chat.errors import ERRORS
from chat.events.log import MAX_SEQ, frames_after_async, last_seq_async, live_channel
from chat.events.viewers import ACTION_EVENTS, action_event_for, withheld
from chat.live import LiveEvent, Subscription, live_feed
from chat.services.realtime import (
    action_confirm,
    action_decide,
    action_withdraw,
    conversation_cancel,
    conversation_for_viewer,
    message_send,
    user_is_approver,
    user_may_decide,
)
from chat.services.sessions import (
    CLOSE_REVOKED,
    SessionEnded,
    credential_of,
    session_groups,
    session_user,
)
from core import tracing
from core.jsonapi import translate
from core.jsoninput import InvalidText, MalformedJson, loads_checked
from core.logs import log_context
from tenants.asgi import tenant_database_sync_to_async
from tenants.names import approvals_group

logger = logging.getLogger(__name__)


class FrameError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _uuid_field(frame: dict[str, Any], name: str, *, optional: bool = False) -> str | None:
    value = frame.get(name)
    if value is None and optional:
        return None
    try:
        return str(uuid.UUID(str(value)))
    except (ValueError, TypeError):
        raise FrameError("bad_frame", f"'{name}' must be a uuid") from None


# The close code of a socket whose events can no longer reach it (Redis lost under the channel
# layer): like 503, reconnect and replay with chat.subscribe + after (docs/protocol.md).
CLOSE_RECONNECT = 4503

# A live event may be missed (a worker that published while this process was subscribing to a
# channel it had just left, say). A gap is refilled from the log when the next event arrives,
# but the last event of a turn (``done``) has no next one: a conversation whose turn is under
# way and has been silent this long is read from the log again, so a missed ``done`` arrives
# late instead of never.
RESYNC_SECONDS = 2.0
# Events after which a turn is still under way (more will follow), and those that end it.
_UNDER_WAY = frozenset({"message", "status", "token"})
_SETTLED = frozenset({"done", "pending", "error"})


def _frame_span(kind: str, schema: str) -> contextlib.AbstractContextManager[Any]:
    """A ``ws <type>`` span: the root of a turn's trace for ``chat.send``, of a decision's for
    ``action.decide``. Pings are not traced (a browser sends one every few seconds)."""
    if kind == "ping":
        return contextlib.nullcontext()
    return tracing.span(f"ws {kind}", **{"countersign.tenant": schema})


class ChatConsumer(AsyncWebsocketConsumer):
    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Close with ``CLOSE_RECONNECT`` when Redis fails under this socket (its channel-layer
        receive, a group change, the event log): a socket that can no longer carry its events
        must not stay open looking alive, and a bare 1011 does not tell clients to come back."""
        try:
            await super().__call__(scope, receive, send)
        except redis.RedisError as error:
            logger.warning(
                "Redis failed under a WebSocket (%s); closing it %s so the client reconnects",
                error.__class__.__name__,
                CLOSE_RECONNECT,
            )
            with contextlib.suppress(Exception):
                await send({"type": "websocket.close", "code": CLOSE_RECONNECT})

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch, less its ``aclose_old_connections()`` before every handler: a hop
        to a thread for each message, token frames included, which was the largest part of the
        web process's CPU per token. Nothing here holds a database connection between messages:
        every database call goes through ``tenant_database_sync_to_async``, which gives its
        connection back when it ends."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        self.tenant = self.scope["tenant"]
        self.user_id: int = self.scope["user"].pk
        self.db = tenant_database_sync_to_async(self.tenant)
        # conversation uuid → highest seq delivered to this client
        self.delivered: dict[str, int] = {}
        # conversation uuid → when its last event arrived, while its turn is under way
        self.under_way: dict[str, float] = {}
        # conversation uuid → its live channel, followed through the process's feed (chat.live)
        self.follows: dict[str, Subscription] = {}
        # conversations this socket follows without owning them (chat.events.viewers)
        self.watching: set[str] = set()
        # Live events wait here for the pump; frames in and replays hold ``delivering`` so that
        # what a socket is sent keeps the order it would have had with one task doing it all.
        self.inbox: asyncio.Queue[tuple[str, LiveEvent] | Exception] = asyncio.Queue()
        self.delivering = asyncio.Lock()
        self.pump = asyncio.create_task(self._pump_live_events())
        self.tokens = float(settings.WS_RATE_LIMIT_BURST)
        self.refilled_at = time.monotonic()
        self.rate_warned_at = 0.0
        self.approver = await self.db(lambda: user_is_approver(user=self.scope["user"]))()
        if self.approver:
            await self.channel_layer.group_add(self._approvals(), self.channel_name)
        # Revoking the token or deactivating the user closes this socket (session_end).
        authorization = dict(self.scope.get("headers", [])).get(b"authorization", b"")
        self.credential = credential_of(authorization.decode("latin-1"))
        self.session_groups = session_groups(
            schema=self.tenant.schema_name, user_id=self.user_id, credential=self.credential
        )
        for group in self.session_groups:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        self.resync = asyncio.create_task(self._resync_silent_turns())

    async def _resync_silent_turns(self) -> None:
        """Read the log of every conversation whose turn is under way and silent for
        ``RESYNC_SECONDS`` (see there). Redis failing here closes the socket, as anywhere."""
        try:
            while True:
                await asyncio.sleep(RESYNC_SECONDS)
                now = time.monotonic()
                for conversation, last in list(self.under_way.items()):
                    if now - last >= RESYNC_SECONDS:
                        self.under_way[conversation] = now  # read again in as long, not at once
                        async with self.delivering:
                            await self._deliver_missed(conversation, until=None)
        except redis.RedisError as error:
            logger.warning("Redis failed under a WebSocket's resync (%r); closing it", error)
            await self.close(code=CLOSE_RECONNECT)

    async def _pump_live_events(self) -> None:
        """Send each live event the feed hands over (``_on_live``), in order, filling a gap
        from the log first. The feed losing Redis, or Redis failing here, closes the socket."""
        try:
            while True:
                item = await self.inbox.get()
                if isinstance(item, Exception):
                    raise redis.ConnectionError(f"live feed lost: {item!r}")
                conversation, event = item
                async with self.delivering:
                    await self._deliver_live(conversation, event)
        except redis.RedisError as error:
            logger.warning("Redis failed under a WebSocket's live events (%r); closing it", error)
            await self.close(code=CLOSE_RECONNECT)

    async def disconnect(self, code: int) -> None:
        for task in (getattr(self, "resync", None), getattr(self, "pump", None)):
            if task is not None:
                task.cancel()
        for subscription in getattr(self, "follows", {}).values():
            await subscription.cancel()
        for group in getattr(self, "session_groups", []):
            await self.channel_layer.group_discard(group, self.channel_name)
        if getattr(self, "approver", False):
            await self.channel_layer.group_discard(self._approvals(), self.channel_name)

    # -- frames in ------------------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self._within_rate():
            return await self._rate_limited()
        try:
            frame = self._parse(text_data, bytes_data)
            handler = self._handlers().get(frame["type"])
            if handler is None:
                raise FrameError("unknown_type", f"unknown frame type {frame['type']!r}")
            with (
                log_context(tenant=self.tenant.schema_name, user=self.user_id),
                _frame_span(frame["type"], self.tenant.schema_name),
            ):
                async with self.delivering:  # "accepted" before the events it caused
                    await handler(frame)
        except FrameError as error:
            await self._error(error.code, str(error))
        except SessionEnded:
            await self.close(code=CLOSE_REVOKED)
        except Exception as error:
            translated = translate(error, ERRORS)  # the HTTP API's table: the same codes
            if translated is None:
                raise
            await self._error(translated[1], str(error))

    def _handlers(self) -> dict[str, Callable[[dict[str, Any]], Awaitable[None]]]:
        return {
            "ping": self._ping,
            "chat.send": self._chat_send,
            "chat.subscribe": self._chat_subscribe,
            "chat.cancel": self._chat_cancel,
            "action.decide": self._action_decide,
            "action.withdraw": self._action_withdraw,
        }

    def _parse(self, text_data: str | None, bytes_data: bytes | None) -> dict[str, Any]:
        if text_data is None:
            raise FrameError("bad_frame", "frames must be JSON text, not binary")
        if len(text_data.encode()) > settings.WS_MAX_FRAME_BYTES:
            raise FrameError(
                "frame_too_large", f"frames are limited to {settings.WS_MAX_FRAME_BYTES} bytes"
            )
        try:
            frame = loads_checked(text_data)
        except MalformedJson as error:
            raise FrameError("bad_frame", f"frame is not usable: {error}") from None
        except InvalidText as error:
            raise FrameError("invalid_text", str(error)) from None
        if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
            raise FrameError("bad_frame", "frame must be a JSON object with a 'type'")
        return frame

    def _within_rate(self) -> bool:
        now = time.monotonic()
        self.tokens = min(
            float(settings.WS_RATE_LIMIT_BURST),
            self.tokens + (now - self.refilled_at) * settings.WS_RATE_LIMIT_PER_SECOND,
        )
        self.refilled_at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def _rate_limited(self) -> None:
        # One error per second at most: answering every dropped frame would amplify a flood.
        if time.monotonic() - self.rate_warned_at >= 1:
            self.rate_warned_at = time.monotonic()
            await self._error("rate_limited", "too many frames; some were dropped")

    # -- handlers -------------------------------------------------------------------------------

    async def _ping(self, frame: dict[str, Any]) -> None:
        await self._send({"type": "pong"})

    async def _chat_send(self, frame: dict[str, Any]) -> None:
        text = frame.get("text")
        if not isinstance(text, str):
            raise FrameError("bad_frame", "'text' must be a string")
        if len(text) > settings.CHAT_MAX_MESSAGE_CHARS:
            raise FrameError(
                "too_long",
                f"the message is longer than {settings.CHAT_MAX_MESSAGE_CHARS} characters",
            )
        conversation = _uuid_field(frame, "conversation", optional=True)
        client_id = _uuid_field(frame, "client_id", optional=True)
        schema = self.tenant.schema_name
        before = (
            await last_seq_async(schema=schema, conversation_uuid=conversation)
            if conversation
            else 0
        )

        def send(user: User) -> tuple[str, str, bool]:
            accepted = message_send(
                user=user, text=text, conversation_uuid=conversation, client_id=client_id
            )
            return str(accepted.conversation.uuid), str(accepted.message.uuid), accepted.created

        conversation_uuid, message_uuid, _ = await self._as_user(send)
        await self._send(
            {
                "type": "accepted",
                "conversation": conversation_uuid,
                "message": message_uuid,
                "client_id": client_id,
            }
        )
        if conversation_uuid not in self.delivered:
            await self._subscribe(conversation_uuid, after=before)

    async def _chat_subscribe(self, frame: dict[str, Any]) -> None:
        conversation = _uuid_field(frame, "conversation")
        after = frame.get("after", 0)
        if not isinstance(after, int) or isinstance(after, bool) or not 0 <= after < MAX_SEQ:
            raise FrameError("bad_frame", f"'after' must be an integer from 0 to {MAX_SEQ - 1}")
        assert conversation is not None
        owner = await self._as_user(
            lambda user: (
                conversation_for_viewer(user=user, conversation_uuid=conversation).user_id
                == user.pk
            )
        )
        if owner:
            self.watching.discard(conversation)
        else:
            self.watching.add(conversation)
        await self._subscribe(conversation, after=after)

    async def _chat_cancel(self, frame: dict[str, Any]) -> None:
        conversation = _uuid_field(frame, "conversation")
        await self._as_user(
            lambda user: conversation_cancel(user=user, conversation_uuid=str(conversation))
        )

    async def _action_decide(self, frame: dict[str, Any]) -> None:
        action = _uuid_field(frame, "action")
        decision = frame.get("decision")
        if decision not in ("approve", "reject", "confirm", "decline"):
            raise FrameError(
                "bad_frame", "'decision' must be 'approve', 'reject', 'confirm' or 'decline'"
            )
        arguments, note = frame.get("arguments"), frame.get("note", "")
        if arguments is not None and not isinstance(arguments, dict):
            raise FrameError("bad_frame", "'arguments' must be an object")
        if not isinstance(note, str):
            raise FrameError("bad_frame", "'note' must be a string")
        if decision in ("confirm", "decline"):  # an approver's edit (docs/protocol.md)
            await self._as_user(
                lambda user: action_confirm(
                    user=user, action_id=str(action), decision=decision, note=note
                )
            )
            return
        await self._as_user(
            lambda user: action_decide(
                user=user, action_id=str(action), decision=decision, arguments=arguments, note=note
            )
        )

    async def _action_withdraw(self, frame: dict[str, Any]) -> None:
        action = _uuid_field(frame, "action")
        note = frame.get("note", "")
        if not isinstance(note, str):
            raise FrameError("bad_frame", "'note' must be a string")
        await self._as_user(
            lambda user: action_withdraw(user=user, action_id=str(action), note=note)
        )

    async def _as_user(self, work: Callable[[User], Any]) -> Any:
        """Run ``work`` in the tenant schema with the user re-read from the database, so a user
        deactivated, a token revoked or expired (the socket closes 4401) or a role removed
        mid-connection is refused from the next frame on."""

        def run() -> Any:
            user = session_user(user_id=self.user_id, credential=self.credential)
            if user is None:
                raise SessionEnded
            return work(user)

        return await self.db(run)()

    # -- events out -----------------------------------------------------------------------------

    async def session_end(self, message: dict[str, Any]) -> None:
        """The token of this socket was revoked or its user deactivated (chat/services/sessions)."""
        await self.close(code=CLOSE_REVOKED)

    def _approvals(self) -> str:
        return approvals_group(self.tenant.schema_name)

    async def approvals_event(self, message: dict[str, Any]) -> None:
        """A pending or decided action anywhere in the tenant (approvers' inbox). Conversations
        this connection follows get it through their own, ordered, path instead."""
        event = message["event"]
        if event["conversation"] in self.delivered:
            return
        if await self._may_decide(event["action"]["tool"]):
            await self._send(event)

    async def _may_decide(self, tool: str) -> bool:
        """Whether this user may decide ``tool``'s actions, asked per event (not cached): the
        feed carries arguments meant for that tool's approvers only, and a policy or role
        changed mid-connection must count from the next event on."""

        def check() -> bool:
            user = User.objects.filter(pk=self.user_id, is_active=True).first()
            return user is not None and user_may_decide(user=user, tool=tool)

        return bool(await self.db(check)())

    async def _subscribe(self, conversation: str, *, after: int) -> None:
        """Follow the live channel first, then replay: nothing falls between the two."""
        self.delivered[conversation] = after
        if conversation not in self.follows:
            channel = live_channel(schema=self.tenant.schema_name, conversation_uuid=conversation)
            self.follows[conversation] = await live_feed().follow(
                channel, functools.partial(self._on_live, conversation), self.inbox.put_nowait
            )
        await self._deliver_missed(conversation, until=None)

    def _on_live(self, conversation: str, event: LiveEvent) -> None:
        self.inbox.put_nowait((conversation, event))

    async def _deliver_live(self, conversation: str, event: LiveEvent) -> None:
        """A live event; a gap (an event missed live) is filled from the log first."""
        if conversation not in self.delivered:
            return
        if event.seq > self.delivered[conversation] + 1:
            await self._deliver_missed(conversation, until=event.seq - 1)
        await self._deliver(conversation, event)

    async def _deliver_missed(self, conversation: str, *, until: int | None) -> None:
        if conversation not in self.delivered:
            return  # no longer followed
        missed = await frames_after_async(
            schema=self.tenant.schema_name,
            conversation_uuid=conversation,
            after=self.delivered[conversation],
            until=until,
        )
        for event in missed:
            await self._deliver(conversation, event)

    async def _deliver(self, conversation: str, event: LiveEvent) -> None:
        if conversation not in self.delivered or event.seq <= self.delivered[conversation]:
            return  # not followed (any more), or already sent
        self.delivered[conversation] = event.seq
        if event.type in _UNDER_WAY:
            self.under_way[conversation] = time.monotonic()
        elif event.type in _SETTLED:
            self.under_way.pop(conversation, None)
        owner = conversation not in self.watching
        if withheld(kind=event.type, owner=owner):
            return
        if event.type not in ACTION_EVENTS:
            await self.send(text_data=event.text)  # the token path: relayed as it came
            return
        # What this viewer may read of the action is asked per viewer, at send time: the
        # published event carries one payload for everyone (chat.events.viewers).
        shown = await self.db(
            lambda: action_event_for(event=json.loads(event.text), user_id=self.user_id)
        )()
        await self._send(shown.event)
        if not shown.readable and not owner:
            await self._unfollow(conversation)

    async def _unfollow(self, conversation: str) -> None:
        """Stop following a conversation this socket may no longer watch."""
        for table in (self.delivered, self.under_way):
            table.pop(conversation, None)
        self.watching.discard(conversation)
        subscription = self.follows.pop(conversation, None)
        if subscription is not None:
            await subscription.cancel()

    async def _send(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(payload, ensure_ascii=False))

    async def _error(self, code: str, message: str) -> None:
        await self._send({"type": "error", "code": code, "message": message})
