"""The inbox's one-line cards show the start of the text and how many people it reaches, to
those who may read the action (chat.selectors.action_visible_to), and to nobody else."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.utils import timezone

from actions.models import Contact, ContactGroup, ToolPolicy
from chat.models import Conversation, PendingAction
from chat.pending_actions import pending_action_propose
from chat.presenters import action_card
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF
from tests.conftest import host_client
from tests.tenants.factories import http_login, make_user

LONG = (
    "The school bus leaves at 7:40 tomorrow instead of 8:00 because of the roadworks on "
    "Hill Street; please make sure your child is at the stop ten minutes early."
)
SOON = (timezone.now() + timedelta(days=2)).replace(microsecond=0).isoformat()

# Every write tool: its arguments, the words its preview starts with, and its recipient count.
PER_TOOL: dict[str, tuple[dict[str, Any], str, int]] = {
    "send_sms": ({"to": ["Parents"], "body": LONG}, "The school bus leaves at 7:40", 2),
    "send_telegram": ({"to": ["Kim Minji"], "body": LONG}, "The school bus leaves", 1),
    "send_email": (
        {"to": ["Parents", "Emma Wilson"], "subject": "Bus times", "body": LONG},
        "Bus times — The school bus",
        3,
    ),
    "create_announcement": (
        {"title": "Bus times", "body": LONG, "audience": "Parents"},
        "Bus times — The school bus",
        2,
    ),
    "schedule_reminder": (
        {"due_at": SOON, "tool": "send_sms", "arguments": {"to": ["Parents"], "body": LONG}},
        "The school bus leaves at 7:40",
        2,
    ),
}


@pytest.fixture
def school(in_tenant_a: Tenant) -> Tenant:
    parents = ContactGroup.objects.create(name="Parents")
    for index, name in enumerate(["Kim Minji", "Lee Jun"]):
        contact = Contact.objects.create(
            name=name,
            phone=f"+1202555010{index}",
            email=f"parent{index}@example.com",
            telegram_chat_id=f"10{index}",
        )
        contact.groups.add(parents)
    Contact.objects.create(name="Emma Wilson", phone="+12025550111", email="emma@example.com")
    return in_tenant_a


def _propose(tenant: Tenant, tool: str) -> PendingAction:
    requester = make_user(tenant, "sam", role=STAFF)
    return pending_action_propose(
        conversation=Conversation.objects.create(user=requester),
        tool_call_id="call-1",
        tool=tool,
        arguments=PER_TOOL[tool][0],
        requested_by_id=requester.pk,
    )


def _signed_in(tenant: Tenant, username: str) -> Client:
    client = host_client(tenant)
    assert http_login(client, username)
    return client


@pytest.mark.parametrize("tool", PER_TOOL)
def test_an_approver_sees_the_start_of_the_text_and_the_recipient_count(
    school: Tenant, tool: str
) -> None:
    action = _propose(school, tool)
    approver = make_user(school, "april", role=APPROVER)
    _, starts, count = PER_TOOL[tool]

    card = action_card(action, viewer=approver)

    assert card.preview.startswith(starts)
    assert len(card.preview) <= 100 and card.preview.endswith("…")
    assert card.recipient_count == count
    page = _signed_in(school, "april").get("/approvals/").content.decode()
    assert starts in page
    assert f"{count} recipient" in page


@pytest.mark.parametrize("tool", PER_TOOL)
def test_someone_who_may_not_read_the_action_gets_no_preview(school: Tenant, tool: str) -> None:
    action = _propose(school, tool)
    desk = Group.objects.create(name="Front desk")
    ToolPolicy.objects.update_or_create(tool_name=tool, defaults={"approver_group": desk})
    approver = make_user(school, "april", role=APPROVER)  # not on the front desk

    card = action_card(action, viewer=approver)

    assert card.preview == "" and card.recipient_count is None
    assert "school bus" not in repr(card).lower()


def test_previews_never_cross_tenants(school: Tenant, tenant_b: Tenant) -> None:
    action = _propose(school, "send_sms")
    make_user(tenant_b, "april", role=APPROVER)
    client = _signed_in(tenant_b, "april")

    assert LONG[:20] not in client.get("/approvals/").content.decode()
    assert client.get(f"/actions/{action.id}/card/?inbox=1").status_code == 404
