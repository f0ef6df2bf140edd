"""Ways in for tests of chat's doors: an API client and a WebSocket holding a user's bearer
token, and a wait for the reply a worker writes."""

from __future__ import annotations

import time
from typing import Any

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
