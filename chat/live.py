"""Live events for a web process: one Redis pub/sub connection per event loop, shared by every
socket (DESIGN.md §6, docs/protocol.md).

A worker appends each event to its conversation's log and publishes it, in the same Lua call,
on the pub/sub channel named like the log (``chat.events.log``). The message is ``"<seq> <type>
<frame>"``, where ``frame`` is the JSON text a socket sends, ``seq`` included. A web process
subscribes each conversation's channel once, however many of its sockets follow it, and hands
every event to them as that text: no channel-layer hop, no thread, no JSON decoded or encoded
per frame. Each web process has its own subscription, so every process gets every event.

Pub/sub delivers in order and drops nothing while its connection lives. When the connection
fails, every follower is told (``on_lost``): the sockets close with 4503 and their clients
reconnect and replay from the log, as with any Redis failure under a socket. The next
``follow`` opens a new connection.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis
from django.conf import settings

from core.redis_clients import async_redis

# A subscription not confirmed in this long means Redis stopped answering.
_CONFIRM_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class LiveEvent:
    seq: int
    type: str
    text: str  # the frame a socket sends, as JSON text


def parse_published(data: str) -> LiveEvent:
    seq, kind, text = data.split(" ", 2)
    return LiveEvent(seq=int(seq), type=kind, text=text)


OnEvent = Callable[[LiveEvent], None]
OnLost = Callable[[Exception], None]


class Subscription:
    """One follower of one channel; ``cancel`` to stop following."""

    def __init__(self, feed: LiveFeed, channel: str, on_event: OnEvent, on_lost: OnLost) -> None:
        self.feed, self.channel = feed, channel
        self.on_event, self.on_lost = on_event, on_lost

    async def cancel(self) -> None:
        await self.feed._unfollow(self)


class LiveFeed:
    """The live events of every channel this event loop's sockets follow, over one connection.

    The reader task is the only one reading the connection; commands (SUBSCRIBE, UNSUBSCRIBE)
    are written to it from the callers' tasks, and their confirmations come back, in order,
    through the reader, which resolves the waiting ``follow``.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self._followers: dict[str, set[Subscription]] = {}
        self._confirmations: dict[str, collections.deque[asyncio.Future[None]]] = {}
        self._connection: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._connecting = asyncio.Lock()

    async def follow(self, channel: str, on_event: OnEvent, on_lost: OnLost) -> Subscription:
        """Follow ``channel``; returns once Redis has confirmed the subscription, so an event
        published after this returns reaches ``on_event``. Raises ``redis.RedisError`` when Redis
        is unreachable."""
        subscription = Subscription(self, channel, on_event, on_lost)
        followers = self._followers.setdefault(channel, set())
        followers.add(subscription)
        if len(followers) > 1:
            waiting = self._confirmations.get(channel)
            if waiting:  # subscribed by another socket a moment ago: wait for the same answer
                await asyncio.shield(waiting[-1])
            return subscription
        try:
            connection = await self._connect()
            confirmed = asyncio.get_running_loop().create_future()
            self._confirmations.setdefault(channel, collections.deque()).append(confirmed)
            await connection.send_command("SUBSCRIBE", channel, check_health=False)
            await asyncio.wait_for(asyncio.shield(confirmed), _CONFIRM_SECONDS)
        except (TimeoutError, OSError, redis.RedisError) as error:
            followers.discard(subscription)
            if isinstance(error, redis.RedisError):
                raise
            raise redis.ConnectionError(f"live feed subscription failed: {error!r}") from error
        return subscription

    async def _unfollow(self, subscription: Subscription) -> None:
        followers = self._followers.get(subscription.channel)
        if followers is None or subscription not in followers:
            return
        followers.discard(subscription)
        if followers:
            return
        del self._followers[subscription.channel]
        if self._connection is not None:
            # On failure the reader sees it too, and tells the remaining followers.
            with contextlib.suppress(OSError, redis.RedisError):
                await self._connection.send_command(
                    "UNSUBSCRIBE", subscription.channel, check_health=False
                )

    async def _connect(self) -> Any:
        async with self._connecting:
            if self._connection is None:
                pool = async_redis().connection_pool
                connection = pool.connection_class(**pool.connection_kwargs)
                await connection.connect()
                self._connection = connection
                self._reader = asyncio.create_task(self._read(connection), name="cs-live-feed")
            return self._connection

    async def _read(self, connection: Any) -> None:
        try:
            while True:
                # Pub/sub messages and confirmations are RESP3 pushes: asked for, not handed to
                # a handler.
                reply = await connection.read_response(timeout=math.inf, push_request=True)
                kind = reply[0]
                if kind == "message":
                    self._dispatch(reply[1], reply[2])
                elif kind == "subscribe":
                    self._confirm(reply[1])
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self._fail(connection, error)

    def _dispatch(self, channel: str, data: str) -> None:
        followers = self._followers.get(channel)
        if not followers:
            return  # unsubscribed, its confirmation not yet read
        event = parse_published(data)
        for subscription in list(followers):
            subscription.on_event(event)

    def _confirm(self, channel: str) -> None:
        waiting = self._confirmations.get(channel)
        if not waiting:
            return
        confirmed = waiting.popleft()
        if not waiting:
            del self._confirmations[channel]
        if not confirmed.done():
            confirmed.set_result(None)

    def _fail(self, connection: Any, error: Exception) -> None:
        if self._connection is connection:
            self._connection = None
        followers, self._followers = self._followers, {}
        confirmations, self._confirmations = self._confirmations, {}
        for waiting in confirmations.values():
            for confirmed in waiting:
                if not confirmed.done():
                    confirmed.set_exception(redis.ConnectionError(f"live feed lost: {error!r}"))
        for subscriptions in followers.values():
            for subscription in subscriptions:
                subscription.on_lost(error)

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        if self._connection is not None:
            await self._connection.disconnect()
        self._connection = self._reader = None
        self._followers.clear()


_lock = threading.Lock()
_feeds: dict[asyncio.AbstractEventLoop, LiveFeed] = {}


def live_feed() -> LiveFeed:
    """The running event loop's feed (daphne has one loop; tests one per test)."""
    loop = asyncio.get_running_loop()
    with _lock:
        for closed in [other for other in _feeds if other.is_closed()]:
            del _feeds[closed]
        feed = _feeds.get(loop)
        if feed is None or feed.url != settings.REDIS_URL:
            feed = _feeds[loop] = LiveFeed(settings.REDIS_URL)
        return feed
