"""Ways in for tests of chat's doors: an API client and a WebSocket holding a user's bearer
token, and a wait for the reply a worker writes."""

from __future__ import annotations

import json
import time
from typing import Any

from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client
from django_tenants.utils import tenant_context

from chat.models import Message
from chat.tokens import api_token_create
from config.asgi import application
from tenants.models import Tenant


def token_client(tenant: Tenant, user: User) -> Client:
    """An HTTP client on ``tenant``'s host that sends a fresh API token of ``user``."""
    with tenant_context(tenant):
        _, token = api_token_create(user=user, name="tests")
    return Client(
        HTTP_HOST=tenant.get_primary_domain().domain, HTTP_AUTHORIZATION=f"Bearer {token}"
    )


def bearer_socket(host: str, token: str) -> WebsocketCommunicator:
    """A chat WebSocket to ``host`` that authenticates with ``token``."""
    return WebsocketCommunicator(
        application,
        "/ws/chat/",
        headers=[(b"host", host.encode()), (b"authorization", f"Bearer {token}".encode())],
    )


def wait_for_reply(tenant: Tenant, *, run_id: Any, seconds: float = 60) -> Message:
    """The assistant message of run ``run_id``, once a worker has stored it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with tenant_context(tenant):
            found = Message.objects.filter(run_id=run_id, role=Message.Role.ASSISTANT).first()
        if found is not None:
            return found
        time.sleep(0.2)
    raise AssertionError(f"no reply for run {run_id}")


def frames_until_pong(
    tenant: Tenant, user: User, frames: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Send each frame as ``user`` on ``tenant``'s host, then a ping; return what came back
    before the pong."""
    with tenant_context(tenant):
        _, token = api_token_create(user=user, name="ws")
    host = tenant.get_primary_domain().domain

    async def scenario() -> list[dict[str, Any]]:
        socket = bearer_socket(host, token)
        connected, _ = await socket.connect()
        assert connected
        for frame in [*frames, {"type": "ping"}]:
            await socket.send_to(text_data=json.dumps(frame))
        received = []
        while (frame := json.loads(await socket.receive_from(timeout=10)))["type"] != "pong":
            received.append(frame)
        await socket.disconnect()
        return received

    return async_to_sync(scenario)()
