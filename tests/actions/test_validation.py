"""Acceptance 5: bad phone numbers, unknown groups, empty bodies, over-limit recipient counts
and opted-out contacts produce clear, specific errors before anything is queued."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from actions.models import OutboundMessage, Reminder, ToolPolicy
from actions.selectors import recipients_resolve
from actions.tools.base import ToolArgumentsError, ToolContext, ToolDisabledError
from actions.tools.registry import get_tool
from tenants.models import Tenant
from tests.actions.factories import make_class_a, make_contact


@pytest.fixture(autouse=True)
def class_a(in_tenant_a: Tenant) -> None:
    make_class_a()


def refused(tool: str, arguments: dict[str, Any]) -> str:
    """The error the tool gives for ``arguments``; asserts that nothing was queued."""
    with pytest.raises(ToolArgumentsError) as refusal:
        get_tool(tool).validate(arguments)
    assert not OutboundMessage.objects.exists()
    return str(refusal.value)


def test_a_malformed_phone_number_is_refused_saying_why() -> None:
    assert refused("send_sms", {"to": ["+1 202 555"], "body": "Hi"}) == (
        "to: phone number '+1 202 555' is too short for its country"
    )


def test_a_phone_number_without_country_code_is_refused() -> None:
    assert refused("send_sms", {"to": ["010-1234-5678"], "body": "Hi"}) == (
        "to: phone number '010-1234-5678' has no country code; start it with + and the country code"
    )


def test_an_unknown_group_or_name_is_refused_by_name() -> None:
    assert refused("send_sms", {"to": ["Parents - Class Z"], "body": "Hi"}) == (
        "to: no contact or group named 'Parents - Class Z'"
    )


def test_an_unknown_announcement_audience_is_refused() -> None:
    assert refused(
        "create_announcement", {"title": "Trip", "body": "Museum.", "audience": "Grade 9"}
    ) == ("audience: no group named 'Grade 9'")


def test_every_bad_recipient_is_reported_at_once() -> None:
    assert refused("send_sms", {"to": ["Nobody", "+1 202 555"], "body": "Hi"}) == (
        "to: no contact or group named 'Nobody'; "
        "phone number '+1 202 555' is too short for its country"
    )


def test_every_bad_recipient_is_also_reported_as_data_for_a_reply_in_another_language() -> None:
    with pytest.raises(ToolArgumentsError) as refusal:
        get_tool("send_sms").validate({"to": ["Nobody", "+1 202 555"], "body": "Hi"})

    assert [(p.kind, p.subject, p.channel) for p in refusal.value.problems] == [
        ("unknown", "Nobody", "sms"),
        ("bad_phone", "+1 202 555", ""),
    ]
    assert "; ".join(p.text for p in refusal.value.problems) in str(refusal.value)


@pytest.mark.parametrize("body", ["", "   \n "])
def test_an_empty_message_is_refused(body: str) -> None:
    assert refused("send_sms", {"to": ["Kim Minji"], "body": body}) == "body: the message is empty"


def test_an_sms_over_1600_characters_is_refused_with_its_length() -> None:
    assert refused("send_sms", {"to": ["Kim Minji"], "body": "x" * 1601}) == (
        "body: the message is 1601 characters long; the most is 1600"
    )


def test_an_email_without_subject_is_refused() -> None:
    assert refused("send_email", {"to": ["Kim Minji"], "subject": " ", "body": "Hi"}) == (
        "subject: the subject is empty"
    )


def test_an_email_subject_with_a_line_break_is_refused() -> None:
    assert refused(
        "send_email", {"to": ["Kim Minji"], "subject": "Hi\nBcc: x@y.z", "body": "Hi"}
    ) == ("subject: the subject must be a single line")


def test_no_recipients_at_all_is_refused() -> None:
    assert refused("send_sms", {"to": [" "], "body": "Hi"}) == "to: name at least one recipient"


def test_a_missing_field_and_an_unexpected_one_are_named() -> None:
    assert refused("send_sms", {"body": "Hi", "cc": ["Kim Minji"]}) == (
        "to: Field required; cc: Extra inputs are not permitted"
    )


def test_more_recipients_than_the_policy_allows_is_refused_with_both_numbers() -> None:
    ToolPolicy.objects.create(tool_name="send_sms", max_recipients=1)

    assert refused("send_sms", {"to": ["Parents - Class A"], "body": "Hi"}) == (
        "to: this would reach 2 recipients, over this tenant's limit of 1 per action"
    )


def test_an_opted_out_contact_named_directly_is_refused() -> None:
    assert refused("send_sms", {"to": ["Park Jiwoo"], "body": "Hi"}) == (
        "to: Park Jiwoo has opted out of messages"
    )


def test_the_number_of_an_opted_out_contact_is_refused_too() -> None:
    assert refused("send_sms", {"to": ["+1 (202) 555-0103"], "body": "Hi"}) == (
        "to: +12025550103 belongs to Park Jiwoo, who has opted out"
    )


def test_a_group_whose_members_all_opted_out_leaves_nobody_to_send_to() -> None:
    make_contact("Opted Out", phone="+12025550130", groups=("Quiet",), opted_out=True)

    assert refused("send_sms", {"to": ["Quiet"], "body": "Hi"}) == (
        "to: nobody to send to: Opted Out (opted out)"
    )


def test_opted_out_group_members_are_skipped_and_shown_on_the_approval_card() -> None:
    tool = get_tool("send_sms")

    description = tool.describe(tool.validate({"to": ["Parents - Class A"], "body": "Hi"}))

    assert description == (
        "SMS to 2 recipients (group 'Parents - Class A' (2)): \"Hi\". "
        "Skipped 1: Park Jiwoo (opted out)"
    )


def test_a_contact_without_the_channels_address_is_refused() -> None:
    make_contact("No Mail", phone="+12025550131")

    assert refused("send_email", {"to": ["No Mail"], "subject": "S", "body": "Hi"}) == (
        "to: No Mail has no e-mail address"
    )


def test_an_ambiguous_contact_name_asks_for_the_address() -> None:
    make_contact("Kim Minji", phone="+12025550132")

    assert refused("send_sms", {"to": ["kim minji"], "body": "Hi"}) == (
        "to: 'kim minji' matches more than one contact; give the phone number instead"
    )


def test_a_malformed_email_address_is_refused() -> None:
    assert refused("send_email", {"to": ["kim@"], "subject": "S", "body": "Hi"}) == (
        "to: 'kim@' is not a valid e-mail address"
    )


def test_a_disabled_tool_refuses_to_validate_or_execute() -> None:
    ToolPolicy.objects.create(tool_name="send_sms", enabled=False)
    tool = get_tool("send_sms")
    args = tool.parse({"to": ["Kim Minji"], "body": "Hi"})

    with pytest.raises(ToolDisabledError, match="send_sms is switched off"):
        tool.validate({"to": ["Kim Minji"], "body": "Hi"})
    with pytest.raises(ToolDisabledError):
        tool.execute(args, ToolContext(uuid.uuid4(), requested_by_id=None))
    assert not OutboundMessage.objects.exists()


def test_executing_arguments_that_no_longer_resolve_queues_nothing() -> None:
    tool = get_tool("send_sms")
    args = tool.validate({"to": ["Emma Wilson"], "body": "Hi"})
    make_contact("Emma Wilson", phone="+12025550133")  # now ambiguous

    with pytest.raises(ToolArgumentsError, match="matches more than one contact"):
        tool.execute(args, ToolContext(uuid.uuid4(), requested_by_id=None))
    assert not OutboundMessage.objects.exists()


def test_a_reminder_in_the_past_is_refused() -> None:
    arguments = {
        "due_at": "2020-01-01T09:00:00+00:00",
        "tool": "send_sms",
        "arguments": {"to": ["Kim Minji"], "body": "Hi"},
    }

    assert refused("schedule_reminder", arguments) == (
        "due_at: 2020-01-01 09:00 UTC is in the past; a reminder must be due later"
    )
    assert not Reminder.objects.exists()


def test_a_reminder_without_a_time_zone_is_refused() -> None:
    arguments = {
        "due_at": "2099-01-01T09:00:00",
        "tool": "send_sms",
        "arguments": {"to": ["Kim Minji"], "body": "Hi"},
    }

    assert refused("schedule_reminder", arguments) == "due_at: Input should have timezone info"


def test_a_reminder_checks_the_action_it_schedules() -> None:
    arguments = {
        "due_at": (timezone.now() + timedelta(hours=1)).isoformat(),
        "tool": "send_sms",
        "arguments": {"to": ["Park Jiwoo"], "body": "Hi"},
    }

    assert refused("schedule_reminder", arguments) == (
        "arguments: to: Park Jiwoo has opted out of messages"
    )


def test_a_reminder_cannot_schedule_another_reminder() -> None:
    arguments = {
        "due_at": (timezone.now() + timedelta(hours=1)).isoformat(),
        "tool": "schedule_reminder",
        "arguments": {},
    }

    assert refused("schedule_reminder", arguments).startswith(
        "tool: Input should be 'send_sms', 'send_telegram', 'send_email' or 'create_announcement'"
    )


def test_an_email_address_of_an_opted_out_contact_is_refused_whatever_its_case() -> None:
    assert refused(
        "send_email", {"to": ["JIWOO@Parents.example"], "subject": "S", "body": "B"}
    ) == ("to: JIWOO@Parents.example belongs to Park Jiwoo, who has opted out")


@pytest.mark.parametrize(
    ("zone", "typed", "stored"),
    [
        ("Asia/Seoul", "010-2345-6789", "+821023456789"),
        ("Europe/London", "07911 123456", "+447911123456"),
    ],
)
def test_a_local_number_is_read_in_the_country_of_the_tenants_time_zone(
    tenant_a: Tenant, zone: str, typed: str, stored: str
) -> None:
    Tenant.objects.filter(pk=tenant_a.pk).update(time_zone=zone)

    get_tool("send_sms").validate({"to": [typed], "body": "Hi"})
    plan = recipients_resolve(channel="sms", entries=[typed], max_recipients=5)

    assert [r.address for r in plan.recipients] == [stored]


def test_the_country_of_one_tenants_zone_is_not_used_for_another(tenant_b: Tenant) -> None:
    Tenant.objects.filter(pk=tenant_b.pk).update(time_zone="Asia/Seoul")

    assert refused("send_sms", {"to": ["010-1234-5678"], "body": "Hi"}).endswith(
        "has no country code; start it with + and the country code"
    )
