"""A message whose turn cannot be queued is never left stored and unanswered (issue #13, item 2).

The broker seam (``run_turn.delay``) is patched to fail as it does while Redis restarts; the
database and the conversation lock are the real ones.
"""

from __future__ import annotations

import uuid

import kombu.exceptions
import pytest
from django.contrib.auth.models import User
from django_tenants.utils import tenant_context

from chat import tasks
from chat.models import Message
from chat.services.realtime import SendFailed, message_send
from tenants.models import Tenant
from tenants.roles import STAFF
from tests.tenants.factories import make_user


@pytest.fixture
def staff(transactional_db: None, tenant_a: Tenant) -> User:
    return make_user(tenant_a, "sally", role=STAFF)


def test_a_send_whose_turn_cannot_be_queued_fails_and_sending_it_again_queues_it(
    staff: User, tenant_a: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    queued: list[int] = []

    def broker_down(message_id: int) -> None:
        raise kombu.exceptions.OperationalError("Error 111 connecting to redis")

    client_id = str(uuid.uuid4())
    with tenant_context(tenant_a):
        monkeypatch.setattr(tasks.run_turn, "delay", broker_down)
        with pytest.raises(SendFailed):
            message_send(user=staff, text="Hello", conversation_uuid=None, client_id=client_id)
        stored = Message.objects.get(client_id=client_id)

        monkeypatch.setattr(tasks.run_turn, "delay", queued.append)
        again = message_send(
            user=staff,
            text="Hello",
            conversation_uuid=str(stored.conversation.uuid),
            client_id=client_id,
        )

    assert again.message.pk == stored.pk
    assert queued == [stored.pk]


def test_sending_an_answered_message_again_queues_nothing(
    staff: User, tenant_a: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    queued: list[int] = []
    monkeypatch.setattr(tasks.run_turn, "delay", queued.append)
    client_id = str(uuid.uuid4())
    with tenant_context(tenant_a):
        first = message_send(user=staff, text="Hello", conversation_uuid=None, client_id=client_id)
        Message.objects.create(
            conversation=first.conversation,
            role=Message.Role.ASSISTANT,
            content="Hi",
            run_id=first.message.uuid,
        )
        message_send(
            user=staff,
            text="Hello",
            conversation_uuid=str(first.conversation.uuid),
            client_id=client_id,
        )

    assert queued == [first.message.pk]
