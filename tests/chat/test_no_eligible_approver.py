"""A request nobody but its requester could approve is flagged at once: on the requester's card,
and to tenant admins on every page; never left to expire quietly."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group, User
from django.test import Client
from django_tenants.utils import tenant_context

from actions.models import Contact, ToolPolicy
from chat.models import Conversation, PendingAction
from chat.pending_actions import pending_action_propose
from chat.presenters import action_card
from chat.selectors import unapprovable_actions
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF, TENANT_ADMIN
from tests.conftest import host_client
from tests.tenants.factories import http_login, make_user


def _request(tenant: Tenant, requester: User, *, tool_call: str = "call_1") -> PendingAction:
    with tenant_context(tenant):
        Contact.objects.get_or_create(name="Emma Wilson", phone="+12025550111")
        return pending_action_propose(
            conversation=Conversation.objects.create(user=requester),
            tool_call_id=tool_call,
            tool="send_sms",
            arguments={"to": ["Emma Wilson"], "body": "Fire drill at 10"},
            requested_by_id=requester.pk,
        )


def _page(tenant: Tenant, username: str) -> str:
    client: Client = host_client(tenant)
    assert http_login(client, username)
    return client.get("/").content.decode()


def test_the_only_approvers_own_request_is_flagged_to_them_and_to_tenant_admins(
    tenant_a: Tenant,
) -> None:
    april = make_user(tenant_a, "april", role=APPROVER)  # the tenant's only approver
    make_user(tenant_a, "tina", role=TENANT_ADMIN)
    action = _request(tenant_a, april)

    with tenant_context(tenant_a):
        card = action_card(action, viewer=april)
        assert card.no_approver
        assert [a.pk for a in unapprovable_actions()] == [action.pk]
    admin_page = _page(tenant_a, "tina")
    assert 'data-testid="unapprovable"' in admin_page
    assert "1 request nobody else can approve" in admin_page


def test_an_empty_approver_group_flags_everyones_requests(tenant_a: Tenant) -> None:
    sam = make_user(tenant_a, "sam", role=STAFF)
    make_user(tenant_a, "april", role=APPROVER)
    with tenant_context(tenant_a):
        desk = Group.objects.create(name="Front desk")
        ToolPolicy.objects.update_or_create(tool_name="send_sms", defaults={"approver_group": desk})
    action = _request(tenant_a, sam)

    with tenant_context(tenant_a):
        assert action_card(action, viewer=sam).no_approver
        assert [a.pk for a in unapprovable_actions()] == [action.pk]


def test_a_request_someone_else_can_approve_is_not_flagged(tenant_a: Tenant) -> None:
    sam = make_user(tenant_a, "sam", role=STAFF)
    make_user(tenant_a, "april", role=APPROVER)
    make_user(tenant_a, "tina", role=TENANT_ADMIN)
    action = _request(tenant_a, sam)

    with tenant_context(tenant_a):
        assert not action_card(action, viewer=sam).no_approver
        assert unapprovable_actions() == []
    assert 'data-testid="unapprovable"' not in _page(tenant_a, "tina")


def test_only_tenant_admins_see_the_flag_and_only_for_their_own_tenant(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    april = make_user(tenant_a, "april", role=APPROVER)
    _request(tenant_a, april)
    make_user(tenant_a, "sam", role=STAFF)
    make_user(tenant_b, "tina", role=TENANT_ADMIN)

    assert 'data-testid="unapprovable"' not in _page(tenant_a, "sam")
    assert 'data-testid="unapprovable"' not in _page(tenant_b, "tina")


def test_the_admins_flag_costs_the_same_few_queries_however_many_people_are_waiting(
    tenant_a: Tenant, django_assert_max_num_queries: Any
) -> None:
    """Every tenant admin's page asks the question: it looks at each tool's approvers once,
    not once per requester (twelve requesters here, one of them the only approver)."""
    april = make_user(tenant_a, "april", role=APPROVER)
    requesters = [make_user(tenant_a, f"staff{n}", role=STAFF) for n in range(11)]
    mine = _request(tenant_a, april, tool_call="call_april")
    for n, requester in enumerate(requesters):
        _request(tenant_a, requester, tool_call=f"call_{n}")

    with tenant_context(tenant_a), django_assert_max_num_queries(6):
        flagged = unapprovable_actions()
    assert [a.pk for a in flagged] == [mine.pk]
