"""One pub/sub connection per web process carries every followed conversation's live events
(chat/live.py): each channel is subscribed once, every follower hears each event, and losing
the connection is told to every follower instead of going silent."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django_tenants.utils import tenant_context

from chat.events.log import append_event, live_channel
from chat.live import LiveEvent, live_feed
from chat.models import Conversation
from chat.tokens import api_token_create
from config.asgi import application
from core.redis_clients import async_redis, sync_redis
from tenants.models import Tenant
from tests.tenants.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def _unexpected(value: object) -> None:
    raise AssertionError(f"not expected here: {value!r}")


async def _kill_feed_connections() -> None:
    """What a Redis restart does to the feed's connection."""
    await async_redis().client_kill_filter(_type="pubsub")


def test_two_sockets_share_one_subscription_and_both_hear_every_event() -> None:
    channel = "cs:test:live:shared"

    async def scenario() -> tuple[list[LiveEvent], list[LiveEvent], int, int]:
        heard: tuple[list[LiveEvent], list[LiveEvent]] = ([], [])
        feed = live_feed()
        first = await feed.follow(channel, heard[0].append, _unexpected)
        second = await feed.follow(channel, heard[1].append, _unexpected)
        subscribed = (await async_redis().pubsub_numsub(channel))[0][1]
        for seq in (1, 2, 3):
            await async_redis().publish(channel, f"{seq} token {json.dumps({'seq': seq})}")
        while len(heard[1]) < 3:
            await asyncio.sleep(0.01)
        await first.cancel()
        await second.cancel()
        await asyncio.sleep(0.1)  # the UNSUBSCRIBE is not waited for
        left = (await async_redis().pubsub_numsub(channel))[0][1]
        await feed.close()
        return heard[0], heard[1], subscribed, left

    first, second, subscribed, left = async_to_sync(scenario)()

    assert subscribed == 1
    assert first == second == [LiveEvent(n, "token", json.dumps({"seq": n})) for n in (1, 2, 3)]
    assert left == 0


# Kills every pub/sub connection of the shared Redis (other test processes' too): alone.
@pytest.mark.alone
def test_losing_the_connection_tells_every_follower_and_the_next_follow_reconnects() -> None:
    async def scenario() -> tuple[list[str], list[LiveEvent]]:
        lost: list[str] = []
        heard: list[LiveEvent] = []
        feed = live_feed()
        await feed.follow("cs:test:live:a", _unexpected, lambda e: lost.append("a"))
        await feed.follow("cs:test:live:b", _unexpected, lambda e: lost.append("b"))
        await _kill_feed_connections()
        while len(lost) < 2:
            await asyncio.sleep(0.01)
        await feed.follow("cs:test:live:a", heard.append, _unexpected)
        await async_redis().publish("cs:test:live:a", '7 done {"seq":7}')
        while not heard:
            await asyncio.sleep(0.01)
        await feed.close()
        return sorted(lost), heard

    lost, heard = async_to_sync(scenario)()

    assert lost == ["a", "b"]
    assert heard == [LiveEvent(7, "done", '{"seq":7}')]


def test_an_appended_event_is_published_as_the_frame_a_socket_sends(tenant_a: Tenant) -> None:
    schema, conversation = tenant_a.schema_name, "0b9f6a3e-8f3c-4d59-a7c1-1f8a3c0d2e4b"
    channel = live_channel(schema=schema, conversation_uuid=conversation)

    async def scenario() -> list[LiveEvent]:
        heard: list[LiveEvent] = []
        feed = live_feed()
        await feed.follow(channel, heard.append, _unexpected)
        await asyncio.to_thread(
            append_event,
            schema=schema,
            conversation_uuid=conversation,
            payload={"type": "token", "content": "Twenty «days»"},
        )
        while not heard:
            await asyncio.sleep(0.01)
        await feed.close()
        return heard

    (event,) = async_to_sync(scenario)()

    assert channel.startswith(f"cs:{schema}:")  # DESIGN §4: the tenant's prefix
    frame = {"seq": event.seq, "type": "token", "content": "Twenty «days»"}
    assert event.type == "token"
    assert json.loads(event.text) == {**frame, "conversation": conversation}
    stored: Any = sync_redis().xrange(channel)
    assert stored[-1][1] == {"e": event.text, "t": "token"}


# Kills every pub/sub connection of the shared Redis (other test processes' too): alone.
@pytest.mark.alone
def test_a_socket_whose_live_feed_loses_redis_closes_for_reconnect(tenant_a: Tenant) -> None:
    staff = make_user(tenant_a, "sam")
    with tenant_context(tenant_a):
        _, token = api_token_create(user=staff, name="tab")
        conversation = str(Conversation.objects.create(user=staff, title="Leave").uuid)
    host = tenant_a.get_primary_domain().domain

    async def scenario() -> dict[str, Any]:
        socket = WebsocketCommunicator(
            application,
            "/ws/chat/",
            headers=[(b"host", host.encode()), (b"authorization", f"Bearer {token}".encode())],
        )
        assert (await socket.connect())[0]
        await socket.send_to(
            text_data=json.dumps({"type": "chat.subscribe", "conversation": conversation})
        )
        await socket.send_to(text_data=json.dumps({"type": "ping"}))
        assert json.loads(await socket.receive_from(timeout=10))["type"] == "pong"
        await _kill_feed_connections()
        closed = await socket.receive_output(timeout=10)
        await socket.wait()
        return closed

    closed = async_to_sync(scenario)()

    assert closed == {"type": "websocket.close", "code": 4503}
