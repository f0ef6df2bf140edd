"""Acceptance 4: a 500 is retried with backoff and then marked failed with the error; a 400
fails at once with the provider's message; nothing is marked sent that was not."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from django_tenants.utils import tenant_context
from pytest_django.fixtures import Settings

from actions.models import OutboundMessage
from actions.selectors import RecipientPlan, recipients_resolve
from actions.services.messages import outbound_message_deliver, outbound_messages_queue
from tenants.models import Tenant
from tests.actions.conftest import wait_until
from tests.actions.test_tool_effects import all_settled, run_tool
from tests.unit.actions.fakes import FakeSmtpServer, FakeTwilioServer

Status = OutboundMessage.Status
SERVER_ERROR = FakeTwilioServer.error(500, 20500, "Internal Server Error")
INVALID_TO = FakeTwilioServer.error(
    400, 21211, "The 'To' number +12025550100 is not a valid phone number."
)


def one_queued_sms(to: str = "+12025550100") -> OutboundMessage:
    """A queued message as the tool would leave it, without sending it off to a worker."""
    plan: RecipientPlan = recipients_resolve(channel="sms", entries=[to], max_recipients=10)
    [message] = outbound_messages_queue(
        action_id=uuid.uuid4(), channel="sms", resolve=lambda: plan, body="Hello"
    ).messages
    return message


def test_a_500_is_retried_by_the_worker_and_then_marked_failed_with_the_error(
    celery_worker_thread: None,
    tenant_a: Tenant,
    fake_twilio: FakeTwilioServer,
    fast_retries: None,
) -> None:
    fake_twilio.respond_with(SERVER_ERROR, SERVER_ERROR, SERVER_ERROR)
    action_id = uuid.uuid4()
    with tenant_context(tenant_a):
        run_tool("send_sms", {"to": ["+12025550100"], "body": "Hi"}, action_id=action_id)

    [message] = wait_until(lambda: all_settled(tenant_a, action_id))

    assert len(fake_twilio.requests) == 3
    assert message.status == Status.FAILED
    assert message.attempts == 3
    assert message.error == ("Twilio error 20500: Internal Server Error (gave up after 3 attempts)")
    assert (message.provider_message_id, message.sent_at) == ("", None)


def test_a_500_followed_by_success_is_sent_on_the_second_attempt(
    celery_worker_thread: None,
    tenant_a: Tenant,
    fake_twilio: FakeTwilioServer,
    fast_retries: None,
) -> None:
    fake_twilio.respond_with(SERVER_ERROR)
    action_id = uuid.uuid4()
    with tenant_context(tenant_a):
        run_tool("send_sms", {"to": ["+12025550100"], "body": "Hi"}, action_id=action_id)

    [message] = wait_until(lambda: all_settled(tenant_a, action_id))

    assert (message.status, message.attempts) == (Status.SENT, 2)
    assert message.provider_message_id.startswith("SM")
    assert len(fake_twilio.requests) == 2


def test_each_retry_waits_longer_following_the_backoff(
    in_tenant_a: Tenant, fake_twilio: FakeTwilioServer, settings: Settings
) -> None:
    settings.ACTIONS_RETRY_BASE_SECONDS = 2.0
    settings.ACTIONS_RETRY_MAX_SECONDS = 300.0
    settings.ACTIONS_DELIVERY_MAX_ATTEMPTS = 4
    fake_twilio.respond_with(SERVER_ERROR, SERVER_ERROR, SERVER_ERROR, SERVER_ERROR)
    message = one_queued_sms()

    waits = [outbound_message_deliver(message_id=message.pk).retry_in or 0 for _ in range(3)]
    last = outbound_message_deliver(message_id=message.pk)

    # Jittered within [delay/2, delay] of 2 s, 4 s, 8 s; the fourth attempt gives up.
    within_backoff = [low <= wait <= 2 * low for wait, low in zip(waits, [1, 2, 4], strict=True)]
    assert within_backoff == [True, True, True]
    assert (last.status, last.retry_in) == (Status.FAILED, None)


def test_a_retry_waits_at_least_as_long_as_the_provider_asks(
    in_tenant_a: Tenant, fake_twilio: FakeTwilioServer
) -> None:
    fake_twilio.respond_with(
        FakeTwilioServer.error(429, 20429, "Too Many Requests", **{"Retry-After": "120"})
    )
    message = one_queued_sms()

    attempt = outbound_message_deliver(message_id=message.pk)

    message.refresh_from_db()
    assert attempt.retry_in == 120.0
    assert (message.status, message.error) == (
        Status.QUEUED,
        "Twilio error 20429: Too Many Requests",
    )
    assert message.next_attempt_at is not None


def test_a_400_fails_at_once_with_the_providers_message(
    celery_worker_thread: None, tenant_a: Tenant, fake_twilio: FakeTwilioServer
) -> None:
    fake_twilio.respond_with(INVALID_TO)
    action_id = uuid.uuid4()
    with tenant_context(tenant_a):
        run_tool("send_sms", {"to": ["+12025550100"], "body": "Hi"}, action_id=action_id)

    [message] = wait_until(lambda: all_settled(tenant_a, action_id))

    assert len(fake_twilio.requests) == 1
    assert (message.status, message.attempts) == (Status.FAILED, 1)
    assert message.error == (
        "Twilio error 21211: The 'To' number +12025550100 is not a valid phone number."
    )
    assert (message.provider_message_id, message.sent_at) == ("", None)


def test_an_smtp_550_fails_at_once_with_the_servers_reply(
    in_tenant_a: Tenant, fake_smtp: FakeSmtpServer
) -> None:
    fake_smtp.fail_next("550 5.1.1 Mailbox unknown")
    plan = recipients_resolve(channel="email", entries=["nobody@alpha.example"], max_recipients=5)
    [message] = outbound_messages_queue(
        action_id=uuid.uuid4(), channel="email", resolve=lambda: plan, body="Hi", subject="Hello"
    ).messages

    attempt = outbound_message_deliver(message_id=message.pk)

    message.refresh_from_db()
    assert attempt.status == Status.FAILED
    assert message.error == "SMTP 550 5.1.1 Mailbox unknown"
    assert fake_smtp.messages == []


def test_an_unreachable_provider_is_transient_and_never_marked_sent(
    in_tenant_a: Tenant, settings: Settings
) -> None:
    settings.ACTIONS_BACKENDS = {**settings.ACTIONS_BACKENDS, "sms": "twilio"}
    settings.ACTIONS_DELIVERY_CONFIG = {
        **settings.ACTIONS_DELIVERY_CONFIG,
        "TWILIO_ACCOUNT_SID": "AC1",
        "TWILIO_AUTH_TOKEN": "t",
        "TWILIO_FROM_NUMBER": "+12025550199",
        "TWILIO_BASE_URL": "http://127.0.0.1:9",  # discard port: nothing listens
    }
    message = one_queued_sms()

    attempt = outbound_message_deliver(message_id=message.pk)

    message.refresh_from_db()
    assert attempt.retry_in is not None
    assert message.status == Status.QUEUED
    assert message.error.startswith("Twilio unreachable")
    assert message.sent_at is None


@pytest.mark.parametrize("status", [Status.SENDING, Status.SENT, Status.FAILED])
def test_a_message_that_is_not_queued_is_never_sent_again(
    in_tenant_a: Tenant, fake_twilio: FakeTwilioServer, status: str
) -> None:
    message = one_queued_sms()
    OutboundMessage.objects.filter(pk=message.pk).update(status=status)

    attempt = outbound_message_deliver(message_id=message.pk)

    assert attempt.status == "skipped"
    assert fake_twilio.requests == []


def test_a_message_another_worker_is_still_sending_is_looked_at_again_later(
    in_tenant_a: Tenant, fake_twilio: FakeTwilioServer
) -> None:
    message = one_queued_sms()
    OutboundMessage.objects.filter(pk=message.pk).update(
        status=Status.SENDING, last_attempt_at=timezone.now()
    )

    attempt = outbound_message_deliver(message_id=message.pk)

    message.refresh_from_db()
    assert attempt.status == "skipped"
    assert attempt.retry_in is not None and 0 < attempt.retry_in <= 31
    assert message.status == Status.SENDING
    assert fake_twilio.requests == []


def test_a_message_abandoned_in_sending_by_a_dead_worker_fails_as_unknown_and_is_not_resent(
    in_tenant_a: Tenant, fake_twilio: FakeTwilioServer
) -> None:
    message = one_queued_sms()
    OutboundMessage.objects.filter(pk=message.pk).update(
        status=Status.SENDING, last_attempt_at=timezone.now() - timedelta(seconds=31)
    )

    attempt = outbound_message_deliver(message_id=message.pk)
    again = outbound_message_deliver(message_id=message.pk)

    message.refresh_from_db()
    assert (attempt.status, again.status) == (Status.FAILED, "skipped")
    assert message.status == Status.FAILED
    assert "unknown" in message.error
    assert fake_twilio.requests == []
