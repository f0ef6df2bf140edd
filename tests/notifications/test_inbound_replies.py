"""Deciding by replying "YES 4821" / "NO 4821" to an SMS or Telegram notice, through the
provider's inbound webhook (``/hooks/<channel>/inbound`` on the tenant's host). The fake
providers make the signed webhook calls; the action then runs on a real Celery worker."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from django_tenants.utils import tenant_context
from pytest_django.fixtures import Settings as SettingsWrapper

from actions.models import OutboundMessage
from chat.models import PendingAction
from notifications.models import ApprovalNotice, NotificationPreference
from notifications.services import digest_run
from tenants.models import Tenant
from tests.actions.conftest import wait_until
from tests.notifications.conftest import approver_in, propose
from tests.unit.actions.fakes import (
    FakeTelegramServer,
    FakeTwilioServer,
    InboundPost,
    RecordedRequest,
)

SMS_SECRET = "sms-inbound-secret"
TELEGRAM_SECRET = "telegram-inbound-secret"
OLIVIA_PHONE = "+12025550177"
KIM_PHONE = "+12025550101"
SMS_HOOK = "http://alpha.localhost/hooks/sms/inbound"
TELEGRAM_HOOK = "http://alpha.localhost/hooks/telegram/inbound"
Status = PendingAction.Status


@pytest.fixture(autouse=True)
def inbound_secrets(settings: SettingsWrapper) -> None:
    settings.ACTIONS_DELIVERY_CONFIG = {
        **settings.ACTIONS_DELIVERY_CONFIG,
        "SMS_INBOUND_SECRET": SMS_SECRET,
        "TELEGRAM_INBOUND_SECRET": TELEGRAM_SECRET,
    }


def _approver_by(tenant: Tenant, name: str, channel: str, address: str) -> User:
    user = approver_in(tenant, name, "")
    with tenant_context(tenant):
        NotificationPreference.objects.create(user=user, channel=channel, address=address)
    return user


def _post(tenant: Tenant, call: InboundPost) -> tuple[int, str]:
    client = Client(HTTP_HOST=tenant.get_primary_domain().domain)
    path = "/" + call.url.split("/", 3)[3]
    headers = dict(call.headers)
    if call.form is not None:
        form = urlencode(dict(call.form))
        response = client.post(
            path, data=form, content_type="application/x-www-form-urlencoded", headers=headers
        )
    else:
        response = client.post(
            path, data=call.json_body, content_type="application/json", headers=headers
        )
    return response.status_code, response.content.decode()


def _told(tenant: Tenant, user: User) -> None:
    with tenant_context(tenant):
        digest_run(user_id=user.pk)


def _code(tenant: Tenant, user: User, action: PendingAction) -> str:
    with tenant_context(tenant):
        return ApprovalNotice.objects.get(user=user, action=action).reply_code


def _status(tenant: Tenant, action: PendingAction) -> str:
    with tenant_context(tenant):
        return PendingAction.objects.get(pk=action.pk).status


def _sms_to_kim(twilio: FakeTwilioServer) -> list[RecordedRequest]:
    return [r for r in twilio.requests if r.body.get("To") == KIM_PHONE]


# -- through the worker: the action runs once ---------------------------------------------------


def test_yes_with_the_code_by_sms_executes_the_action_once_and_a_second_yes_changes_nothing(
    celery_worker_thread: None, tenant_a: Tenant, staff_a: User, fake_twilio: FakeTwilioServer
) -> None:
    _approver_by(tenant_a, "olivia", "sms", OLIVIA_PHONE)
    action = propose(tenant_a, staff_a)  # committed: the worker tells olivia by SMS
    notice = wait_until(lambda: [r for r in fake_twilio.requests if r.body["To"] == OLIVIA_PHONE])
    code = re.search(r"YES (\d{4})", notice[0].body["Body"]).group(1)  # type: ignore[union-attr]

    yes = fake_twilio.inbound(
        url=SMS_HOOK, sender=OLIVIA_PHONE, text=f"yes {code}", secret=SMS_SECRET
    )
    status, reply = _post(tenant_a, yes)

    assert status == 200 and "Approved" in reply and "<Message>" in reply
    wait_until(lambda: _status(tenant_a, action) == Status.EXECUTED)
    wait_until(lambda: _sms_to_kim(fake_twilio))
    again = fake_twilio.inbound(
        url=SMS_HOOK, sender=OLIVIA_PHONE, text=f"YES {code}", secret=SMS_SECRET
    )
    status, reply = _post(tenant_a, again)
    assert status == 200 and "already" in reply
    assert len(_sms_to_kim(fake_twilio)) == 1
    with tenant_context(tenant_a):
        assert OutboundMessage.objects.count() == 1


def test_yes_with_the_code_by_telegram_executes_the_action_once(
    celery_worker_thread: None,
    tenant_a: Tenant,
    staff_a: User,
    fake_twilio: FakeTwilioServer,
    fake_telegram: FakeTelegramServer,
) -> None:
    _approver_by(tenant_a, "olivia", "telegram", "4242")
    action = propose(tenant_a, staff_a)
    [notice] = wait_until(lambda: fake_telegram.requests)
    code = re.search(r"YES (\d{4})", notice.body["text"]).group(1)  # type: ignore[union-attr]

    yes = fake_telegram.inbound(
        url=TELEGRAM_HOOK, chat_id=4242, text=f"YES {code}", secret=TELEGRAM_SECRET
    )
    status, reply = _post(tenant_a, yes)

    assert status == 200 and '"method": "sendMessage"' in reply and "Approved" in reply
    wait_until(lambda: _status(tenant_a, action) == Status.EXECUTED)
    wait_until(lambda: _sms_to_kim(fake_twilio))
    again = fake_telegram.inbound(
        url=TELEGRAM_HOOK, chat_id=4242, text=f"YES {code}", secret=TELEGRAM_SECRET
    )
    assert "already" in _post(tenant_a, again)[1]
    assert len(_sms_to_kim(fake_twilio)) == 1


# -- what changes nothing --------------------------------------------------------------------------


def test_a_forged_signature_is_refused_with_403_and_changes_nothing(
    tenant_a: Tenant, staff_a: User, fake_twilio: FakeTwilioServer
) -> None:
    olivia = _approver_by(tenant_a, "olivia", "sms", OLIVIA_PHONE)
    action = propose(tenant_a, staff_a)
    _told(tenant_a, olivia)
    code = _code(tenant_a, olivia, action)

    forged = fake_twilio.inbound(
        url=SMS_HOOK, sender=OLIVIA_PHONE, text=f"YES {code}", secret="guess"
    )
    unsigned = InboundPost(SMS_HOOK, form=forged.form)

    assert _post(tenant_a, forged)[0] == 403
    assert _post(tenant_a, unsigned)[0] == 403
    assert _status(tenant_a, action) == Status.PENDING


def test_a_telegram_update_without_the_secret_token_is_refused(
    tenant_a: Tenant, staff_a: User, fake_telegram: FakeTelegramServer
) -> None:
    olivia = _approver_by(tenant_a, "olivia", "telegram", "4242")
    action = propose(tenant_a, staff_a)
    _told(tenant_a, olivia)
    code = _code(tenant_a, olivia, action)

    forged = fake_telegram.inbound(url=TELEGRAM_HOOK, chat_id=4242, text=f"YES {code}", secret="x")

    assert _post(tenant_a, forged)[0] == 403
    assert _status(tenant_a, action) == Status.PENDING


def test_another_approvers_code_changes_nothing(
    tenant_a: Tenant, staff_a: User, fake_twilio: FakeTwilioServer
) -> None:
    olivia = _approver_by(tenant_a, "olivia", "sms", OLIVIA_PHONE)
    _approver_by(tenant_a, "omar", "sms", "+12025550188")
    action = propose(tenant_a, staff_a)
    _told(tenant_a, olivia)
    code = _code(tenant_a, olivia, action)

    omar = fake_twilio.inbound(
        url=SMS_HOOK, sender="+12025550188", text=f"YES {code}", secret=SMS_SECRET
    )
    status, reply = _post(tenant_a, omar)

    assert status == 200 and f"No request with code {code} waits for you" in reply
    assert _status(tenant_a, action) == Status.PENDING


def test_an_expired_actions_code_changes_nothing(
    tenant_a: Tenant, staff_a: User, fake_twilio: FakeTwilioServer
) -> None:
    olivia = _approver_by(tenant_a, "olivia", "sms", OLIVIA_PHONE)
    action = propose(tenant_a, staff_a)
    _told(tenant_a, olivia)
    code = _code(tenant_a, olivia, action)
    with tenant_context(tenant_a):
        PendingAction.objects.filter(pk=action.pk).update(
            expires_at=timezone.now() - timedelta(minutes=1)
        )

    late = fake_twilio.inbound(
        url=SMS_HOOK, sender=OLIVIA_PHONE, text=f"YES {code}", secret=SMS_SECRET
    )
    status, reply = _post(tenant_a, late)

    assert status == 200 and "expired" in reply
    assert _status(tenant_a, action) != Status.APPROVED
    with tenant_context(tenant_a):
        assert not OutboundMessage.objects.exists()


def test_a_replayed_webhook_call_is_answered_as_such_and_changes_nothing(
    tenant_a: Tenant, staff_a: User, fake_twilio: FakeTwilioServer
) -> None:
    olivia = _approver_by(tenant_a, "olivia", "sms", OLIVIA_PHONE)
    first = propose(tenant_a, staff_a, call="call-1")
    _told(tenant_a, olivia)
    code = _code(tenant_a, olivia, first)
    no = fake_twilio.inbound(
        url=SMS_HOOK, sender=OLIVIA_PHONE, text=f"NO {code}", secret=SMS_SECRET
    )
    assert "Rejected" in _post(tenant_a, no)[1]

    status, reply = _post(tenant_a, no)  # the very same signed call, posted again

    assert status == 200 and "already handled" in reply
    assert _status(tenant_a, first) == Status.REJECTED


def test_a_code_of_tenant_a_sent_to_tenant_bs_hook_does_nothing(
    tenant_a: Tenant, tenant_b: Tenant, staff_a: User, fake_twilio: FakeTwilioServer
) -> None:
    olivia = _approver_by(tenant_a, "olivia", "sms", OLIVIA_PHONE)
    _approver_by(tenant_b, "olivia", "sms", OLIVIA_PHONE)  # the same phone in both tenants
    action = propose(tenant_a, staff_a)
    _told(tenant_a, olivia)
    code = _code(tenant_a, olivia, action)

    call = fake_twilio.inbound(
        url="http://beta.localhost/hooks/sms/inbound",
        sender=OLIVIA_PHONE,
        text=f"YES {code}",
        secret=SMS_SECRET,
    )
    status, reply = _post(tenant_b, call)

    assert status == 200 and f"No request with code {code} waits for you" in reply
    assert _status(tenant_a, action) == Status.PENDING
