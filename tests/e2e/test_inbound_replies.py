"""Deciding by replying "YES <code>" through the real processes: the worker process tells the
approver by SMS or Telegram (the fake providers), the fake provider posts the approver's
signed reply to daphne's webhook, and the worker process executes the action once."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django_tenants.utils import tenant_context

from chat.models import PendingAction
from notifications.models import NotificationPreference
from tenants.models import Tenant
from tenants.roles import STAFF
from tests.actions.conftest import wait_until
from tests.e2e.conftest import Process
from tests.notifications.conftest import approver_in, propose
from tests.tenants.factories import make_user
from tests.unit.actions.fakes import FakeTelegramServer, FakeTwilioServer, RecordedRequest

SMS_SECRET = "e2e-sms-secret"
TELEGRAM_SECRET = "e2e-telegram-secret"
KIM = "+12025550101"


@pytest.fixture(scope="module")
def twilio() -> Iterator[FakeTwilioServer]:
    with FakeTwilioServer() as server:
        yield server


@pytest.fixture(scope="module")
def telegram() -> Iterator[FakeTelegramServer]:
    with FakeTelegramServer() as server:
        yield server


@pytest.fixture(scope="module")
def server_env(
    stack_env: dict[str, str], twilio: FakeTwilioServer, telegram: FakeTelegramServer
) -> dict[str, str]:
    return {
        **stack_env,
        "ACTIONS_SMS_BACKEND": "twilio",
        "TWILIO_ACCOUNT_SID": twilio.account_sid,
        "TWILIO_AUTH_TOKEN": twilio.auth_token,
        "TWILIO_FROM_NUMBER": "+12025550199",
        "TWILIO_BASE_URL": twilio.base_url,
        "ACTIONS_TELEGRAM_BACKEND": "telegram",
        "TELEGRAM_BOT_TOKEN": telegram.bot_token,
        "TELEGRAM_BASE_URL": telegram.base_url,
        "SMS_INBOUND_SECRET": SMS_SECRET,
        "TELEGRAM_INBOUND_SECRET": TELEGRAM_SECRET,
    }


def _approver(tenant: Tenant, name: str, channel: str, address: str) -> User:
    user = approver_in(tenant, name, "")
    with tenant_context(tenant):
        NotificationPreference.objects.create(user=user, channel=channel, address=address)
    return user


def _status(tenant: Tenant, action: PendingAction) -> str:
    with tenant_context(tenant):
        return PendingAction.objects.get(pk=action.pk).status


def _to(twilio: FakeTwilioServer, number: str) -> list[RecordedRequest]:
    return [r for r in twilio.requests if isinstance(r.body, dict) and r.body.get("To") == number]


def _code(text: str) -> str:
    found = re.search(r"YES (\d{4})", text)
    assert found is not None, text
    return found.group(1)


def test_yes_by_sms_through_daphne_executes_once_and_a_forged_call_is_refused(
    transactional_db: None, web: int, worker: Process, tenant_a: Tenant, twilio: FakeTwilioServer
) -> None:
    staff = make_user(tenant_a, "sam", role=STAFF)
    _approver(tenant_a, "olivia", "sms", "+12025550177")
    action = propose(tenant_a, staff)
    [notice] = wait_until(lambda: _to(twilio, "+12025550177"), timeout=60)
    code = _code(notice.body["Body"])
    daphne = f"http://127.0.0.1:{web}"
    url = "http://alpha.localhost/hooks/sms/inbound"

    forged = twilio.inbound(url=url, sender="+12025550177", text=f"YES {code}", secret="guess")
    assert forged.send(via=daphne).status_code == 403
    assert _status(tenant_a, action) == PendingAction.Status.PENDING

    yes = twilio.inbound(url=url, sender="+12025550177", text=f"YES {code}", secret=SMS_SECRET)
    answer = yes.send(via=daphne)
    assert answer.status_code == 200 and f"Approved {code}" in answer.text
    wait_until(lambda: _status(tenant_a, action) == PendingAction.Status.EXECUTED, timeout=60)
    wait_until(lambda: _to(twilio, KIM), timeout=60)

    again = twilio.inbound(url=url, sender="+12025550177", text=f"YES {code}", secret=SMS_SECRET)
    assert "already" in again.send(via=daphne).text
    assert "already handled" in yes.send(via=daphne).text  # the same call replayed
    assert len(_to(twilio, KIM)) == 1


def test_yes_by_telegram_through_daphne_executes_once_and_beta_knows_no_alpha_code(
    transactional_db: None,
    web: int,
    worker: Process,
    tenant_a: Tenant,
    tenant_b: Tenant,
    twilio: FakeTwilioServer,
    telegram: FakeTelegramServer,
) -> None:
    staff = make_user(tenant_a, "tess", role=STAFF)
    _approver(tenant_a, "omar", "telegram", "4242")
    _approver(tenant_b, "omar", "telegram", "4242")  # the same chat in the other tenant
    sent_before = len(_to(twilio, KIM))
    action = propose(tenant_a, staff, call="call-telegram")
    notice = wait_until(
        lambda: [r for r in telegram.requests if r.body.get("chat_id") == "4242"], timeout=60
    )
    code = _code(notice[-1].body["text"])
    daphne = f"http://127.0.0.1:{web}"

    to_beta = telegram.inbound(
        url="http://beta.localhost/hooks/telegram/inbound",
        chat_id=4242,
        text=f"YES {code}",
        secret=TELEGRAM_SECRET,
    )
    assert f"No request with code {code}" in to_beta.send(via=daphne).text
    assert _status(tenant_a, action) == PendingAction.Status.PENDING

    yes = telegram.inbound(
        url="http://alpha.localhost/hooks/telegram/inbound",
        chat_id=4242,
        text=f"yes {code}",
        secret=TELEGRAM_SECRET,
    )
    answer = yes.send(via=daphne)
    assert answer.json()["method"] == "sendMessage" and f"Approved {code}" in answer.json()["text"]
    wait_until(lambda: _status(tenant_a, action) == PendingAction.Status.EXECUTED, timeout=60)
    wait_until(lambda: len(_to(twilio, KIM)) == sent_before + 1, timeout=60)
    assert len(_to(twilio, KIM)) == sent_before + 1
