"""Fixtures of the notifications suite: people who may decide, and a way to propose actions."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django_tenants.utils import tenant_context

from actions.models import Contact
from chat.models import Conversation, PendingAction
from chat.pending_actions import pending_action_propose
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF
from tests.actions.conftest import (  # noqa: F401
    fake_smtp,
    fake_telegram,
    fake_twilio,
    outbox_everywhere,
)
from tests.tenants.factories import make_user


def approver_in(tenant: Tenant, username: str, email: str) -> User:
    user = make_user(tenant, username, role=APPROVER)
    with tenant_context(tenant):
        User.objects.filter(pk=user.pk).update(email=email)
        user.refresh_from_db()
    return user


def propose(
    tenant: Tenant, requester: User, tool: str = "send_sms", call: str = "call-1"
) -> PendingAction:
    """A pending action in ``tenant``, asked for by ``requester`` (committed, unless the test
    runs inside a transaction)."""
    arguments: dict[str, Any] = {
        "send_sms": {"to": ["Kim Minji"], "body": "No class on Friday."},
        "send_email": {"to": ["Kim Minji"], "subject": "Friday", "body": "No class on Friday."},
    }[tool]
    with tenant_context(tenant):
        if not Contact.objects.filter(name="Kim Minji").exists():
            Contact.objects.create(name="Kim Minji", phone="+12025550101", email="kim@example.com")
        conversation, _ = Conversation.objects.get_or_create(user=requester)
        return pending_action_propose(
            conversation=conversation,
            tool_call_id=call,
            tool=tool,
            arguments=arguments,
            requested_by_id=requester.pk,
        )


def forget_link_origins(*tenants: Tenant) -> None:
    """Pages opened by earlier tests (DEBUG on) leave their origin in the tenant-prefixed
    cache (notifications/link_origin.py): a test of links starts without one."""
    for tenant in tenants:
        with tenant_context(tenant):
            cache.delete("notifications:link-origin")


@pytest.fixture
def staff_a(tenant_a: Tenant) -> User:
    return make_user(tenant_a, "sam", role=STAFF)
