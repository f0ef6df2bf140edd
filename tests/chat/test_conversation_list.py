"""The conversation list: rename, delete (soft) and date groups, through the page, the HTTP API
and the WebSocket, for the owner only and never across tenants."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import uuid4
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django_tenants.utils import tenant_context

from chat.models import Conversation, Message, PendingAction
from chat.presenters import conversation_groups
from chat.tokens import api_token_create
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF
from tests.chat.doors import frames_until_pong
from tests.conftest import host_client
from tests.tenants.factories import http_login, make_user


def _signed_in(tenant: Tenant, user: User) -> Client:
    client = host_client(tenant)
    assert http_login(client, user.get_username())
    return client


def _conversation(tenant: Tenant, user: User, title: str = "Leave questions") -> Conversation:
    with tenant_context(tenant):
        conversation = Conversation.objects.create(user=user, title=title)
        Message.objects.create(conversation=conversation, role=Message.Role.USER, content=title)
        return conversation


def _rename(client: Client, conversation: Conversation | str, body: Any) -> Any:
    uuid = conversation.uuid if isinstance(conversation, Conversation) else conversation
    return client.patch(f"/api/conversations/{uuid}/", body, content_type="application/json")


def _refreshed(tenant: Tenant, conversation: Conversation) -> Conversation:
    with tenant_context(tenant):
        return Conversation.objects.get(pk=conversation.pk)


# -- rename ---------------------------------------------------------------------------------------


def test_the_owner_renames_a_conversation_and_the_title_is_stored_on_one_line(
    tenant_a: Tenant,
) -> None:
    sam = make_user(tenant_a, "sam")
    conversation = _conversation(tenant_a, sam)

    response = _rename(_signed_in(tenant_a, sam), conversation, {"title": "  Annual\n leave  "})

    assert response.status_code == 200
    assert response.json() == {"conversation": str(conversation.uuid), "title": "Annual leave"}
    assert _refreshed(tenant_a, conversation).title == "Annual leave"


@pytest.mark.parametrize(
    ("title", "message"),
    [
        ("   ", "The title is empty. Type a few words."),
        ("x" * 201, "The title is 201 characters long; the most is 200."),
        (42, "The title must be text."),
    ],
)
def test_a_blank_too_long_or_non_text_title_is_refused_with_a_clear_message(
    tenant_a: Tenant, title: Any, message: str
) -> None:
    sam = make_user(tenant_a, "sam")
    conversation = _conversation(tenant_a, sam)

    response = _rename(_signed_in(tenant_a, sam), conversation, {"title": title})

    assert response.status_code == 400
    assert response.json()["error"] == {"code": "invalid", "message": message}
    assert _refreshed(tenant_a, conversation).title == "Leave questions"


def test_a_rename_without_a_title_field_names_the_missing_field(tenant_a: Tenant) -> None:
    sam = make_user(tenant_a, "sam")
    conversation = _conversation(tenant_a, sam)

    response = _rename(_signed_in(tenant_a, sam), conversation, {"name": "Leave"})

    assert response.status_code == 400
    assert response.json()["error"]["message"] == "'title' is required"


def test_another_user_of_the_tenant_cannot_rename_or_delete_someone_elses_conversation(
    tenant_a: Tenant,
) -> None:
    conversation = _conversation(tenant_a, make_user(tenant_a, "sam"))
    # An approver may read a conversation with actions, but it is still not theirs to edit.
    april = _signed_in(tenant_a, make_user(tenant_a, "april", role=APPROVER))

    renamed = _rename(april, conversation, {"title": "Mine now"})
    deleted = april.delete(f"/api/conversations/{conversation.uuid}/")

    assert (renamed.status_code, deleted.status_code) == (404, 404)
    after = _refreshed(tenant_a, conversation)
    assert after.title == "Leave questions" and after.deleted_at is None


def test_a_conversation_of_tenant_a_cannot_be_renamed_or_deleted_from_tenant_b(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    conversation = _conversation(tenant_a, make_user(tenant_a, "sam", pk=501))
    # Same username and primary key in tenant B: the host still decides whose rows these are.
    other = _signed_in(tenant_b, make_user(tenant_b, "sam", pk=501))

    renamed = _rename(other, conversation, {"title": "Taken"})
    deleted = other.delete(f"/api/conversations/{conversation.uuid}/")

    assert (renamed.status_code, deleted.status_code) == (404, 404)
    after = _refreshed(tenant_a, conversation)
    assert after.title == "Leave questions" and after.deleted_at is None


def test_a_rename_by_token_from_another_tenants_host_is_unauthenticated(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    sam = make_user(tenant_a, "sam")
    conversation = _conversation(tenant_a, sam)
    with tenant_context(tenant_a):
        _, token = api_token_create(user=sam, name="script")
    client = Client(
        HTTP_HOST=tenant_b.get_primary_domain().domain, HTTP_AUTHORIZATION=f"Bearer {token}"
    )

    response = _rename(client, conversation, {"title": "Taken"})

    assert response.status_code == 401
    assert _refreshed(tenant_a, conversation).title == "Leave questions"


# -- delete ---------------------------------------------------------------------------------------


def test_a_deleted_conversation_leaves_the_list_and_its_page_and_api_answer_404(
    tenant_a: Tenant,
) -> None:
    sam = make_user(tenant_a, "sam")
    kept = _conversation(tenant_a, sam, "Sick leave")
    gone = _conversation(tenant_a, sam, "Leave questions")
    client = _signed_in(tenant_a, sam)

    response = client.delete(f"/api/conversations/{gone.uuid}/")

    assert response.status_code == 200 and response.json()["conversation"] == str(gone.uuid)
    page = client.get("/").content.decode()
    assert "Sick leave" in page and "Leave questions" not in page
    assert client.get(f"/c/{gone.uuid}/").status_code == 404
    assert client.get(f"/api/conversations/{gone.uuid}/").status_code == 404
    assert client.get(f"/c/{kept.uuid}/").status_code == 200
    sending = client.post(
        f"/api/conversations/{gone.uuid}/messages/",
        {"text": "still there?"},
        content_type="application/json",
    )
    assert sending.status_code == 404
    assert _refreshed(tenant_a, gone).deleted_at is not None  # soft: the row stays


def test_a_deleted_conversation_cannot_be_deleted_or_renamed_again(tenant_a: Tenant) -> None:
    sam = make_user(tenant_a, "sam")
    conversation = _conversation(tenant_a, sam)
    client = _signed_in(tenant_a, sam)
    client.delete(f"/api/conversations/{conversation.uuid}/")

    again = client.delete(f"/api/conversations/{conversation.uuid}/")
    renamed = _rename(client, conversation, {"title": "Back"})

    assert (again.status_code, renamed.status_code) == (404, 404)


def test_a_conversation_waiting_for_an_approval_cannot_be_deleted_until_it_is_decided(
    tenant_a: Tenant,
) -> None:
    sam = make_user(tenant_a, "sam")
    conversation = _conversation(tenant_a, sam)
    with tenant_context(tenant_a):
        PendingAction.objects.create(
            conversation=conversation,
            tool_call_id="call_1",
            tool="send_sms",
            arguments={"to": ["Parents"], "body": "Hello"},
            description="Send an SMS",
            requested_by=sam,
        )

    response = _signed_in(tenant_a, sam).delete(f"/api/conversations/{conversation.uuid}/")

    assert response.status_code == 409
    assert "Withdraw it" in response.json()["error"]["message"]
    assert _refreshed(tenant_a, conversation).deleted_at is None


def test_an_approver_still_sees_a_deleted_conversation_as_the_context_of_its_action(
    tenant_a: Tenant,
) -> None:
    sam = make_user(tenant_a, "sam", role=STAFF)
    conversation = _conversation(tenant_a, sam)
    with tenant_context(tenant_a):
        PendingAction.objects.create(
            conversation=conversation,
            tool_call_id="call_1",
            tool="send_sms",
            arguments={"to": ["Parents"], "body": "Hello"},
            description="Send an SMS",
            requested_by=sam,
            status=PendingAction.Status.EXECUTED,
        )
    assert (
        _signed_in(tenant_a, sam).delete(f"/api/conversations/{conversation.uuid}/").status_code
        == 200
    )

    approver = _signed_in(tenant_a, make_user(tenant_a, "april", role=APPROVER))

    assert approver.get(f"/c/{conversation.uuid}/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_deleted_conversation_is_not_found_over_the_websocket(tenant_a: Tenant) -> None:
    sam = make_user(tenant_a, "sam")
    conversation = _conversation(tenant_a, sam)
    _signed_in(tenant_a, sam).delete(f"/api/conversations/{conversation.uuid}/")
    uuid = str(conversation.uuid)

    received = frames_until_pong(
        tenant_a,
        sam,
        [
            {"type": "chat.subscribe", "conversation": uuid, "after": 0},
            {
                "type": "chat.send",
                "conversation": uuid,
                "text": "hello?",
                "client_id": str(uuid4()),
            },
        ],
    )

    assert [(f["type"], f.get("code")) for f in received] == [
        ("error", "not_found"),
        ("error", "not_found"),
    ]
    with tenant_context(tenant_a):
        assert Message.objects.filter(conversation=conversation).count() == 1


# -- date groups ----------------------------------------------------------------------------------


def _at(when: datetime) -> Conversation:
    return Conversation(title=when.isoformat(), updated_at=when)


def test_conversations_are_grouped_by_the_day_they_were_last_active_in_the_tenants_zone() -> None:
    seoul = ZoneInfo("Asia/Seoul")
    now = datetime(2026, 11, 24, 0, 30, tzinfo=seoul)  # 15:30 the day before in UTC
    items = [
        _at(datetime(2026, 11, 23, 15, 10, tzinfo=UTC)),  # 00:10 today in Seoul
        _at(datetime(2026, 11, 23, 14, 50, tzinfo=UTC)),  # 23:50 yesterday in Seoul
        _at(now - timedelta(days=7)),
        _at(now - timedelta(days=8)),
    ]

    groups = conversation_groups(items, now=now, zone=seoul)

    assert [(g.label, [c.title for c in g.conversations]) for g in groups] == [
        ("Today", [items[0].title]),
        ("Yesterday", [items[1].title]),
        ("Previous 7 days", [items[2].title]),
        ("Older", [items[3].title]),
    ]


def test_the_chat_page_shows_the_date_headings_of_the_groups_it_has(tenant_a: Tenant) -> None:
    sam = make_user(tenant_a, "sam")
    _conversation(tenant_a, sam, "Today's question")
    old = _conversation(tenant_a, sam, "An old question")
    with tenant_context(tenant_a):
        Conversation.objects.filter(pk=old.pk).update(
            updated_at=datetime.now(UTC) - timedelta(days=30)
        )

    page = _signed_in(tenant_a, sam).get("/").content.decode()

    assert page.index(">Today<") < page.index("Today&#x27;s question") < page.index(">Older<")
    assert page.index(">Older<") < page.index("An old question")
    assert ">Yesterday<" not in page
