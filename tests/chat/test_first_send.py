"""A client id is unique per user: a first send retried after a reconnect is not run twice."""

from __future__ import annotations

import threading
import uuid

import pytest
from django.db import connection
from django.test import Client
from django_tenants.utils import tenant_context

from chat.models import Conversation, Message
from chat.services.turns import turn_start
from chat.tokens import api_token_create
from tenants.models import Tenant
from tests.chat.conftest import People


def test_a_first_send_repeated_with_its_client_id_returns_the_original(people_a: People) -> None:
    client_id = str(uuid.uuid4())
    first = turn_start(user=people_a.staff, text="Text the parents", client_id=client_id)

    again = turn_start(user=people_a.staff, text="Text the parents", client_id=client_id)

    assert again == (first[0], first[1], False)
    assert Conversation.objects.count() == 1 and Message.objects.count() == 1


def test_a_client_id_already_sent_returns_the_original_even_in_another_conversation(
    people_a: People,
) -> None:
    client_id = str(uuid.uuid4())
    conversation, message, _ = turn_start(user=people_a.staff, text="hello", client_id=client_id)
    other, _, _ = turn_start(user=people_a.staff, text="another conversation")

    again = turn_start(
        user=people_a.staff, text="hello", conversation_uuid=other.uuid, client_id=client_id
    )

    assert again == (conversation, message, False)


def test_the_same_client_id_from_two_users_is_two_messages(people_a: People) -> None:
    client_id = str(uuid.uuid4())
    turn_start(user=people_a.staff, text="hello", client_id=client_id)

    _, _, created = turn_start(user=people_a.approver, text="hello", client_id=client_id)

    assert created is True


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_first_sends_of_one_client_id_store_one_message(
    tenant_a: Tenant, people_a: People
) -> None:
    client_id, start = str(uuid.uuid4()), threading.Barrier(2)
    results: list[tuple[str, bool]] = []

    def send() -> None:
        with tenant_context(tenant_a):
            start.wait()
            conversation, _, created = turn_start(
                user=people_a.staff, text="Text the parents", client_id=client_id
            )
            results.append((str(conversation.uuid), created))
        connection.close()

    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(created for _, created in results) == [False, True]
    assert len({conversation for conversation, _ in results}) == 1
    with tenant_context(tenant_a):
        assert Message.objects.count() == 1 and Conversation.objects.count() == 1


@pytest.fixture
def api(tenant_a: Tenant, people_a: People) -> Client:
    _, token = api_token_create(user=people_a.staff, name="x")
    return Client(HTTP_HOST="alpha.localhost", HTTP_AUTHORIZATION=f"Bearer {token}")


def test_a_repeated_http_first_send_returns_the_original_accepted(api: Client) -> None:
    body = {"text": "Text the parents", "client_id": str(uuid.uuid4())}

    first = api.post("/api/conversations/", body, content_type="application/json")
    again = api.post("/api/conversations/", body, content_type="application/json")

    assert first.status_code == again.status_code == 202
    assert again.json() == first.json()
    assert Conversation.objects.count() == 1


def test_a_client_id_of_a_first_send_repeated_on_messages_returns_the_original(
    api: Client,
) -> None:
    client_id = str(uuid.uuid4())
    first = api.post(
        "/api/conversations/",
        {"text": "hello", "client_id": client_id},
        content_type="application/json",
    ).json()

    again = api.post(
        f"/api/conversations/{first['conversation']}/messages/",
        {"text": "hello", "client_id": client_id},
        content_type="application/json",
    )

    assert again.status_code == 202 and again.json() == first


def test_a_client_id_that_is_not_a_uuid_is_a_400(api: Client) -> None:
    response = api.post(
        "/api/conversations/",
        {"text": "hello", "client_id": "not-a-uuid"},
        content_type="application/json",
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_request"
