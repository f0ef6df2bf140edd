"""A stored user message is an event of its conversation (issue #14, DESIGN §10): every tab
watching the conversation sees the question as well as the reply, whichever door it came in by."""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client
from django_tenants.utils import tenant_context

from chat.events.log import frames_after_async
from chat.models import Conversation, Message
from chat.tokens import api_token_create
from config.asgi import application
from tenants.models import Tenant
from tests.tenants.factories import make_user


def _token(tenant: Tenant, user: User) -> str:
    with tenant_context(tenant):
        _, token = api_token_create(user=user, name="tab")
    return token


def _socket(host: str, token: str) -> WebsocketCommunicator:
    return WebsocketCommunicator(
        application,
        "/ws/chat/",
        headers=[(b"host", host.encode()), (b"authorization", f"Bearer {token}".encode())],
    )


async def _until(socket: WebsocketCommunicator, kind: str) -> list[dict[str, Any]]:
    frames = []
    while True:
        frame = json.loads(await socket.receive_from(timeout=60))
        frames.append(frame)
        if frame["type"] in (kind, "error"):
            return frames


def _conversation(tenant: Tenant, user: User) -> str:
    with tenant_context(tenant):
        return str(Conversation.objects.create(user=user, title="Leave").uuid)


@pytest.mark.django_db(transaction=True)
def test_a_second_tab_receives_the_question_before_the_turn_and_then_the_reply(
    tenant_a: Tenant, celery_worker_thread: None
) -> None:
    staff = make_user(tenant_a, "sam")
    token = _token(tenant_a, staff)
    host = tenant_a.get_primary_domain().domain
    conversation = _conversation(tenant_a, staff)
    client_id = str(uuid.uuid4())

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        sender, watcher = _socket(host, token), _socket(host, token)
        assert (await sender.connect())[0] and (await watcher.connect())[0]
        await watcher.send_to(
            text_data=json.dumps(
                {"type": "chat.subscribe", "conversation": conversation, "after": 0}
            )
        )
        await watcher.send_to(text_data=json.dumps({"type": "ping"}))
        assert json.loads(await watcher.receive_from(timeout=10))["type"] == "pong"
        await sender.send_to(
            text_data=json.dumps(
                {
                    "type": "chat.send",
                    "conversation": conversation,
                    "text": "  hello there  ",
                    "client_id": client_id,
                }
            )
        )
        sent = await _until(sender, "done")
        watched = await _until(watcher, "done")
        await sender.disconnect()
        await watcher.disconnect()
        return sent, watched

    sent, watched = async_to_sync(scenario)()

    with tenant_context(tenant_a):
        stored = Message.objects.get(client_id=client_id)
    question = watched[0]
    assert question["type"] == "message"
    assert question["conversation"] == conversation
    assert question["message"] == str(stored.uuid)
    assert (question["role"], question["text"]) == ("user", "hello there")
    assert datetime.fromisoformat(question["created_at"]) == stored.created_at
    assert [f["seq"] for f in watched] == list(
        range(question["seq"], question["seq"] + len(watched))
    )
    assert watched[-1]["type"] == "done"
    # The sending tab gets it too, after ``accepted`` and with the same uuid (it dedupes by it).
    assert [f["type"] for f in sent[:2]] == ["accepted", "message"]
    assert sent[1] == question and sent[0]["message"] == question["message"]


@pytest.mark.django_db(transaction=True)
def test_a_message_sent_over_http_is_an_event_of_its_new_conversation(
    tenant_a: Tenant, celery_worker_thread: None
) -> None:
    staff = make_user(tenant_a, "sam")
    token = _token(tenant_a, staff)
    api = Client(
        HTTP_HOST=tenant_a.get_primary_domain().domain, HTTP_AUTHORIZATION=f"Bearer {token}"
    )

    created = api.post(
        "/api/conversations/", {"text": "hello there"}, content_type="application/json"
    ).json()

    events = [
        json.loads(frame.text)
        for frame in async_to_sync(frames_after_async)(
            schema=tenant_a.schema_name, conversation_uuid=created["conversation"], after=0
        )
    ]
    assert events[0]["type"] == "message" and events[0]["seq"] == 1
    assert (events[0]["message"], events[0]["text"]) == (created["message"], "hello there")


@pytest.mark.django_db(transaction=True)
def test_sending_a_client_id_again_announces_the_message_once(
    tenant_a: Tenant, celery_worker_thread: None
) -> None:
    staff = make_user(tenant_a, "sam")
    token = _token(tenant_a, staff)
    host = tenant_a.get_primary_domain().domain
    conversation = _conversation(tenant_a, staff)
    frame = {
        "type": "chat.send",
        "conversation": conversation,
        "text": "hello there",
        "client_id": str(uuid.uuid4()),
    }

    async def scenario() -> None:
        socket = _socket(host, token)
        assert (await socket.connect())[0]
        await socket.send_to(text_data=json.dumps(frame))
        await _until(socket, "done")
        await socket.send_to(text_data=json.dumps(frame))
        assert json.loads(await socket.receive_from(timeout=10))["type"] == "accepted"
        await socket.disconnect()

    async_to_sync(scenario)()

    events = [
        json.loads(frame.text)
        for frame in async_to_sync(frames_after_async)(
            schema=tenant_a.schema_name, conversation_uuid=conversation, after=0
        )
    ]
    assert [e["type"] for e in events].count("message") == 1


@pytest.mark.django_db(transaction=True)
def test_another_tenants_user_cannot_watch_the_question_of_a_conversation(
    tenant_a: Tenant, tenant_b: Tenant, celery_worker_thread: None
) -> None:
    owner = make_user(tenant_a, "sam")
    conversation = _conversation(tenant_a, owner)
    stranger = make_user(tenant_b, "sam")
    token_b = _token(tenant_b, stranger)
    host, host_b = tenant_a.get_primary_domain().domain, tenant_b.get_primary_domain().domain

    async def scenario() -> list[dict[str, Any]]:
        socket = _socket(host_b, token_b)
        assert (await socket.connect())[0]
        await socket.send_to(
            text_data=json.dumps(
                {"type": "chat.subscribe", "conversation": conversation, "after": 0}
            )
        )
        frames = [json.loads(await socket.receive_from(timeout=10))]
        await socket.disconnect()
        return frames

    sender_token = _token(tenant_a, owner)

    async def send() -> None:
        socket = _socket(host, sender_token)
        assert (await socket.connect())[0]
        await socket.send_to(
            text_data=json.dumps(
                {"type": "chat.send", "conversation": conversation, "text": "hello there"}
            )
        )
        await _until(socket, "done")
        await socket.disconnect()

    async_to_sync(send)()
    frames = async_to_sync(scenario)()

    assert [(f["type"], f.get("code")) for f in frames] == [("error", "not_found")]
    assert "hello there" not in json.dumps(frames)
