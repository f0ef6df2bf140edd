"""The registry the agent uses: tool lookup, what the model and the approver are shown, and
the tenant's tool policy (including who may approve)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from actions.models import ToolPolicy
from actions.selectors import approval_refusal
from actions.tools.base import UnknownToolError
from actions.tools.registry import (
    get_tool,
    policies,
    policies_create,
    tool_policy,
    write_tools,
)
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF
from tests.actions.factories import make_class_a
from tests.tenants.factories import make_user


def test_the_registry_lists_the_five_write_tools() -> None:
    assert [tool.name for tool in write_tools()] == [
        "send_sms",
        "send_telegram",
        "send_email",
        "create_announcement",
        "schedule_reminder",
    ]


def test_every_tool_has_a_description_and_a_json_schema_for_the_model() -> None:
    for tool in write_tools():
        schema = tool.args_schema.model_json_schema()
        assert tool.kind == "write"
        assert len(tool.description()) > 40, tool.name
        assert schema["additionalProperties"] is False, tool.name
        assert all("description" in field for field in schema["properties"].values()), tool.name


def test_an_unknown_tool_name_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(UnknownToolError) as refusal:
        get_tool("delete_everything")

    assert str(refusal.value) == (
        "unknown tool 'delete_everything'; the write tools are send_sms, send_telegram, "
        "send_email, create_announcement, schedule_reminder"
    )


def test_a_missing_policy_is_created_with_the_defaults(in_tenant_a: Tenant) -> None:
    policies_create()
    policy = tool_policy("send_email")

    assert (
        policy.enabled,
        policy.approver_group,
        policy.allow_self_approval,
        policy.max_recipients,
    ) == (True, None, False, 50)
    policies_create()
    assert tool_policy("send_email").pk == policy.pk is not None


def test_creating_policies_keeps_what_the_tenant_admin_set(in_tenant_a: Tenant) -> None:
    ToolPolicy.objects.create(tool_name="send_sms", max_recipients=3)

    policies_create()

    assert ToolPolicy.objects.get(tool_name="send_sms").max_recipients == 3
    assert ToolPolicy.objects.count() == len(write_tools())


def test_no_policy_row_is_made_for_an_unknown_tool(in_tenant_a: Tenant) -> None:
    with pytest.raises(UnknownToolError):
        tool_policy("rm_rf")
    policies_create()

    assert not ToolPolicy.objects.filter(tool_name="rm_rf").exists()


def test_reading_policies_writes_no_row_and_takes_one_query(in_tenant_a: Tenant) -> None:
    with CaptureQueriesContext(connection) as queries:
        read = policies()

    assert [q["sql"].split()[0] for q in queries if "actions_toolpolicy" in q["sql"]] == ["SELECT"]
    assert [(name, policy.pk, policy.enabled) for name, policy in read.items()] == [
        (tool.name, None, True) for tool in write_tools()
    ]
    assert not ToolPolicy.objects.exists()


def test_disabled_tools_are_left_out_of_the_models_tool_list(in_tenant_a: Tenant) -> None:
    ToolPolicy.objects.create(tool_name="send_telegram", enabled=False)

    enabled = [name for name, policy in policies().items() if policy.enabled]

    assert "send_telegram" not in enabled
    assert len(enabled) == 4


def test_an_approver_may_approve_someone_elses_action(in_tenant_a: Tenant) -> None:
    approver = make_user(in_tenant_a, "ann", role=APPROVER)
    staff = make_user(in_tenant_a, "sam", role=STAFF)

    assert (
        approval_refusal(policy=tool_policy("send_sms"), user=approver, requested_by_id=staff.pk)
        is None
    )


def test_staff_may_not_approve(in_tenant_a: Tenant) -> None:
    staff = make_user(in_tenant_a, "sam", role=STAFF)

    assert approval_refusal(policy=tool_policy("send_sms"), user=staff, requested_by_id=None) == (
        "only members of 'approver' may approve send_sms actions"
    )


def test_self_approval_is_refused_unless_the_policy_allows_it(in_tenant_a: Tenant) -> None:
    approver = make_user(in_tenant_a, "ann", role=APPROVER)
    policy = tool_policy("send_sms")

    refused = approval_refusal(policy=policy, user=approver, requested_by_id=approver.pk)
    policy.allow_self_approval = True
    allowed = approval_refusal(policy=policy, user=approver, requested_by_id=approver.pk)

    assert refused == "your own requests need someone else's approval"
    assert allowed is None


def test_a_policy_can_name_its_own_approver_group(in_tenant_a: Tenant) -> None:
    office = Group.objects.create(name="front office")
    approver = make_user(in_tenant_a, "ann", role=APPROVER)
    clerk = make_user(in_tenant_a, "cal", role=STAFF)
    clerk.groups.add(office)
    policy = tool_policy("create_announcement")
    policy.approver_group = office
    policy.save()

    assert approval_refusal(policy=policy, user=clerk, requested_by_id=None) is None
    assert approval_refusal(policy=policy, user=approver, requested_by_id=None) == (
        "only members of 'front office' may approve create_announcement actions"
    )


def test_approval_cards_state_the_exact_effect(in_tenant_a: Tenant) -> None:
    make_class_a()

    def card(name: str, arguments: dict[str, object]) -> str:
        tool = get_tool(name)
        return tool.describe(tool.validate(arguments))

    assert card(
        "send_email",
        {"to": ["Kim Minji", "head@alpha.example"], "subject": "Trip", "body": "Bring lunch."},
    ) == ('E-mail "Trip" to 2 recipients (Kim Minji, head@alpha.example): "Bring lunch."')
    assert card("send_telegram", {"to": ["Parents - Class A"], "body": "Hi"}) == (
        "Telegram message to 2 recipients (group 'Parents - Class A' (2)): \"Hi\". "
        "Skipped 1: Park Jiwoo (opted out)"
    )
    assert card("create_announcement", {"title": "Trip", "body": "Museum."}) == (
        'Publish announcement "Trip" for everyone (2 contacts): "Museum."'
    )
    due = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    assert (
        card(
            "schedule_reminder",
            {
                "due_at": due.isoformat(),
                "tool": "send_sms",
                "arguments": {"to": ["Kim Minji"], "body": "Hi"},
            },
        )
        == f'At {due:%Y-%m-%d %H:%M} UTC: SMS to 1 recipient (Kim Minji): "Hi"'
    )


def test_checking_a_proposal_only_reads(in_tenant_a: Tenant) -> None:
    make_class_a()
    tool = get_tool("send_sms")

    tool.describe(tool.validate({"to": ["Kim Minji"], "body": "Hi"}))

    assert not ToolPolicy.objects.exists()
