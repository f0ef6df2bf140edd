"""Acceptance 1: each write tool's execute produces the real effect through the configured
backend (fake Twilio and Telegram servers, a local SMTP server, the outbox), with a real
Celery worker doing the delivery."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from django.utils import timezone
from django_tenants.utils import tenant_context

from actions.models import Announcement, OutboundMessage, Reminder
from actions.tools.base import ToolContext, ToolResult
from actions.tools.registry import get_tool
from tenants.models import Tenant
from tests.actions.conftest import TWILIO_FROM, wait_until
from tests.actions.factories import make_class_a
from tests.unit.actions.fakes import FakeSmtpServer, FakeTelegramServer, FakeTwilioServer

Status = OutboundMessage.Status


def run_tool(name: str, arguments: dict[str, Any], *, action_id: uuid.UUID) -> ToolResult:
    """What the agent does after approval: validate, then execute under the action's id."""
    tool = get_tool(name)
    return tool.execute(tool.validate(arguments), ToolContext(action_id, requested_by_id=None))


def all_settled(tenant: Tenant, action_id: uuid.UUID) -> list[OutboundMessage] | None:
    with tenant_context(tenant):
        messages = list(OutboundMessage.objects.filter(action_id=action_id).order_by("to_address"))
    done = messages and all(m.status in (Status.SENT, Status.FAILED) for m in messages)
    return messages if done else None


def test_send_sms_posts_one_twilio_message_per_reachable_group_member(
    celery_worker_thread: None, tenant_a: Tenant, fake_twilio: FakeTwilioServer
) -> None:
    action_id = uuid.uuid4()
    with tenant_context(tenant_a):
        make_class_a()
        result = run_tool(
            "send_sms",
            {"to": ["Parents - Class A"], "body": "No class on Friday."},
            action_id=action_id,
        )

    messages = wait_until(lambda: all_settled(tenant_a, action_id))

    assert result.summary == (
        "SMS to 2 recipients: sending (the card shows each one as it is sent). "
        "Skipped 1: Park Jiwoo (opted out)"
    )
    assert [m.status for m in messages] == [Status.SENT, Status.SENT]
    sent = sorted(fake_twilio.requests, key=lambda request: request.body["To"])
    assert [request.body for request in sent] == [
        {"To": "+12025550101", "From": TWILIO_FROM, "Body": "No class on Friday."},
        {"To": "+12025550102", "From": TWILIO_FROM, "Body": "No class on Friday."},
    ]
    assert [r.headers["i-twilio-idempotency-token"] for r in sent] == [
        str(m.uuid) for m in messages
    ]
    assert all(m.provider_message_id.startswith("SM") and m.attempts == 1 for m in messages)


def test_send_telegram_calls_send_message_with_each_chat_id(
    celery_worker_thread: None, tenant_a: Tenant, fake_telegram: FakeTelegramServer
) -> None:
    action_id = uuid.uuid4()
    with tenant_context(tenant_a):
        make_class_a()
        run_tool(
            "send_telegram",
            {"to": ["Kim Minji", "100777"], "body": "Pick-up moved to 4 pm."},
            action_id=action_id,
        )

    messages = wait_until(lambda: all_settled(tenant_a, action_id))

    assert {request.path for request in fake_telegram.requests} == {
        f"/bot{fake_telegram.bot_token}/sendMessage"
    }
    assert sorted(
        (request.body["chat_id"], request.body["text"]) for request in fake_telegram.requests
    ) == [("100101", "Pick-up moved to 4 pm."), ("100777", "Pick-up moved to 4 pm.")]
    assert [m.provider_message_id.split(":")[0] for m in messages] == ["100101", "100777"]
    assert all(m.status == Status.SENT for m in messages)


def test_send_email_reaches_the_smtp_server_with_subject_and_body(
    celery_worker_thread: None, tenant_a: Tenant, fake_smtp: FakeSmtpServer
) -> None:
    action_id = uuid.uuid4()
    with tenant_context(tenant_a):
        make_class_a()
        run_tool(
            "send_email",
            {"to": ["Emma Wilson"], "subject": "Report cards", "body": "They are ready.\n"},
            action_id=action_id,
        )

    [message] = wait_until(lambda: all_settled(tenant_a, action_id))

    [mail] = fake_smtp.messages
    assert mail.rcpt_tos == ["emma@parents.example"]
    assert mail.mail_from == "office@alpha.example"
    assert mail.message["Subject"] == "Report cards"
    assert mail.message.get_content() == "They are ready.\n"
    assert message.status == Status.SENT
    assert message.provider_message_id == mail.message["Message-ID"]


def test_the_outbox_backend_stores_the_message_and_marks_it_sent(
    celery_worker_thread: None, tenant_a: Tenant, outbox_everywhere: None
) -> None:
    action_id = uuid.uuid4()
    with tenant_context(tenant_a):
        make_class_a()
        run_tool("send_sms", {"to": ["+1 202 555 0188"], "body": "Hello"}, action_id=action_id)

    [message] = wait_until(lambda: all_settled(tenant_a, action_id))

    assert (message.to_address, message.body, message.status) == (
        "+12025550188",
        "Hello",
        Status.SENT,
    )
    assert message.provider_message_id == f"outbox-{message.uuid}"
    assert message.provider_status == "outboxed"


def test_create_announcement_publishes_it_for_the_group(in_tenant_a: Tenant) -> None:
    action_id = uuid.uuid4()
    make_class_a()

    result = run_tool(
        "create_announcement",
        {"title": "Sports day", "body": "Bring trainers.", "audience": "parents - class a"},
        action_id=action_id,
    )

    announcement = Announcement.objects.get(action_id=action_id)
    assert (announcement.title, announcement.body) == ("Sports day", "Bring trainers.")
    assert announcement.audience is not None
    assert announcement.audience.name == "Parents - Class A"
    assert announcement.published_at is not None
    assert result.summary == 'Announcement "Sports day" published'


def test_schedule_reminder_stores_the_validated_action_for_later(in_tenant_a: Tenant) -> None:
    action_id = uuid.uuid4()
    make_class_a()
    due = timezone.now() + timedelta(days=1)

    run_tool(
        "schedule_reminder",
        {
            "due_at": due.isoformat(),
            "tool": "send_sms",
            "arguments": {"to": ["  Kim Minji "], "body": " Field trip tomorrow "},
        },
        action_id=action_id,
    )

    reminder = Reminder.objects.get(action_id=action_id)
    assert reminder.status == Reminder.Status.SCHEDULED
    assert reminder.due_at == due
    assert reminder.arguments == {"to": ["Kim Minji"], "body": "Field trip tomorrow"}
    assert reminder.description.endswith('SMS to 1 recipient (Kim Minji): "Field trip tomorrow"')
    assert not OutboundMessage.objects.exists()
