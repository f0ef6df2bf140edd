"""The approvals WebSocket feed reaches only the people who may decide each action."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.contrib.auth.models import Group
from django_tenants.utils import tenant_context

from actions.models import Contact, ToolPolicy
from chat.events.log import append_event
from chat.events.payloads import action_payload
from chat.models import Conversation, PendingAction
from chat.pending_actions import pending_action_propose
from chat.tokens import api_token_create
from tenants.models import Tenant
from tenants.roles import STAFF
from tests.chat.doors import bearer_socket
from tests.tenants.factories import make_user


def _propose(conversation: Conversation, tool: str, arguments: dict[str, Any]) -> PendingAction:
    return pending_action_propose(
        conversation=conversation,
        tool_call_id=f"call-{tool}",
        tool=tool,
        arguments=arguments,
        requested_by_id=conversation.user_id,
    )


def _announce(tenant: Tenant, action: PendingAction) -> None:
    with tenant_context(tenant):
        append_event(
            schema=tenant.schema_name,
            conversation_uuid=str(action.conversation.uuid),
            payload={"type": "pending", "action": action_payload(action, full=True)},
        )


@pytest.mark.django_db(transaction=True)
def test_an_approver_of_one_tool_receives_only_that_tools_pending_frames(
    tenant_a: Tenant,
) -> None:
    staff = make_user(tenant_a, "sam", role=STAFF)
    sms_approver = make_user(tenant_a, "sally", role=STAFF)
    with tenant_context(tenant_a):
        sms_desk = Group.objects.create(name="sms desk")
        sms_desk.user_set.add(sms_approver)
        ToolPolicy.objects.update_or_create(
            tool_name="send_sms", defaults={"approver_group": sms_desk}
        )
        Contact.objects.create(name="Kim", phone="+12025550101", email="kim@example.com")
        conversation = Conversation.objects.create(user=staff)
        email = _propose(
            conversation, "send_email", {"to": ["Kim"], "subject": "Pay", "body": "secret"}
        )
        sms = _propose(conversation, "send_sms", {"to": ["Kim"], "body": "hello"})
        _, token = api_token_create(user=sms_approver, name="x")
    host = tenant_a.get_primary_domain().domain

    async def frames_received() -> list[dict[str, Any]]:
        socket = bearer_socket(host, token)
        connected, _ = await socket.connect()
        assert connected
        await database_sync_to_async(_announce)(tenant_a, email)
        await database_sync_to_async(_announce)(tenant_a, sms)
        frames = [json.loads(await socket.receive_from(timeout=10))]
        assert await socket.receive_nothing(timeout=1)
        await socket.disconnect()
        return frames

    frames = async_to_sync(frames_received)()

    assert [frame["action"]["tool"] for frame in frames] == ["send_sms"]


@pytest.mark.django_db(transaction=True)
def test_a_policy_change_mid_connection_counts_from_the_next_pending_frame(
    tenant_a: Tenant,
) -> None:
    staff = make_user(tenant_a, "sam", role=STAFF)
    desk_member = make_user(tenant_a, "sally", role=STAFF)
    with tenant_context(tenant_a):
        desk = Group.objects.create(name="desk")
        desk.user_set.add(desk_member)
        ToolPolicy.objects.update_or_create(tool_name="send_sms", defaults={"approver_group": desk})
        Contact.objects.create(name="Kim", phone="+12025550101", email="kim@example.com")
        conversation = Conversation.objects.create(user=staff)
        email = _propose(
            conversation, "send_email", {"to": ["Kim"], "subject": "Pay", "body": "secret"}
        )
        _, token = api_token_create(user=desk_member, name="x")
    host = tenant_a.get_primary_domain().domain

    def hand_email_to_the_desk() -> None:
        with tenant_context(tenant_a):
            ToolPolicy.objects.update_or_create(
                tool_name="send_email", defaults={"approver_group": desk}
            )

    async def frames_received() -> list[dict[str, Any]]:
        socket = bearer_socket(host, token)
        connected, _ = await socket.connect()
        assert connected
        await database_sync_to_async(_announce)(tenant_a, email)
        assert await socket.receive_nothing(timeout=1)
        await database_sync_to_async(hand_email_to_the_desk)()
        await database_sync_to_async(_announce)(tenant_a, email)
        frames = [json.loads(await socket.receive_from(timeout=10))]
        await socket.disconnect()
        return frames

    frames = async_to_sync(frames_received)()

    assert [frame["action"]["tool"] for frame in frames] == ["send_email"]
