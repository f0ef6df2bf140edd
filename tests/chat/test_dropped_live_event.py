"""A live event a web process missed still reaches the socket (it is in the log).

A process can miss a live event (one published while it was re-subscribing a channel it had
just left, say; earlier, the channel layer dropped messages under load, django/channels#1683). A
gap is refilled when the next event arrives, but ``done`` is the last event of a turn: missed,
the client would wait forever. A socket reads the log of a turn that has gone silent.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django_tenants.utils import tenant_context

from chat import consumers
from chat.events.log import append_event
from chat.live import LiveFeed, parse_published
from chat.models import Conversation
from chat.tokens import api_token_create
from config.asgi import application
from tenants.models import Tenant
from tests.tenants.factories import make_user


def _drop_done(real: Any) -> Any:
    def dispatch(self: LiveFeed, channel: str, data: str) -> None:
        if parse_published(data).type != "done":
            real(self, channel, data)

    return dispatch


@pytest.mark.django_db(transaction=True)
def test_a_done_missed_live_arrives_from_the_log(
    tenant_a: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    staff = make_user(tenant_a, "sam")
    with tenant_context(tenant_a):
        _, token = api_token_create(user=staff, name="tab")
        conversation = str(Conversation.objects.create(user=staff, title="Leave").uuid)
    monkeypatch.setattr(consumers, "RESYNC_SECONDS", 0.2)
    monkeypatch.setattr(LiveFeed, "_dispatch", _drop_done(LiveFeed._dispatch))
    schema, host = tenant_a.schema_name, tenant_a.get_primary_domain().domain

    async def scenario() -> list[dict[str, Any]]:
        socket = WebsocketCommunicator(
            application,
            "/ws/chat/",
            headers=[
                (b"host", host.encode()),
                (b"authorization", f"Bearer {token}".encode()),
            ],
        )
        assert (await socket.connect())[0]
        await socket.send_to(
            text_data=json.dumps({"type": "chat.subscribe", "conversation": conversation})
        )
        await socket.send_to(text_data=json.dumps({"type": "ping"}))  # subscribed once answered
        assert json.loads(await socket.receive_from(timeout=10))["type"] == "pong"
        publish = sync_to_async(append_event)
        await publish(
            schema=schema,
            conversation_uuid=conversation,
            payload={"type": "token", "content": "Twenty days"},
        )
        done = {"type": "done", "message": str(uuid.uuid4()), "content": "Twenty days."}
        await publish(schema=schema, conversation_uuid=conversation, payload=done)
        frames = [json.loads(await socket.receive_from(timeout=10)) for _ in range(2)]
        await socket.disconnect()
        return frames

    token_frame, done_frame = async_to_sync(scenario)()

    assert (token_frame["type"], token_frame["content"]) == ("token", "Twenty days")
    assert (done_frame["type"], done_frame["content"]) == ("done", "Twenty days.")
    assert done_frame["seq"] == token_frame["seq"] + 1
