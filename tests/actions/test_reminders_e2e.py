"""Acceptance 2 across processes: two real `celery -A config worker -P threads` processes,
several beat ticks at once (the fan-out task beat sends), and every due reminder fires exactly
once while the one due later stays put."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.utils import timezone
from django_tenants.utils import tenant_context

from actions.models import Contact, OutboundMessage, Reminder
from tenants.models import Tenant
from tenants.tasks import fan_out
from tests.actions.conftest import TWILIO_FROM, wait_until
from tests.e2e.processes import Process, start_worker
from tests.unit.actions.fakes import FakeTwilioServer

pytestmark = pytest.mark.e2e

DUE_REMINDERS = 12


def test_database_url() -> str:
    """The database pytest-django created, as a URL a separate process can use."""
    db = settings.DATABASES["default"]
    auth = quote(str(db["USER"]), safe="")
    if db["PASSWORD"]:
        auth += ":" + quote(str(db["PASSWORD"]), safe="")
    return f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


test_database_url.__test__ = False  # type: ignore[attr-defined]


@pytest.fixture
def two_workers(
    transactional_db: None, fake_twilio: FakeTwilioServer, tmp_path: Path
) -> Iterator[list[Path]]:
    """Two worker processes with four threads each, sending SMS to the fake Twilio."""
    env = {
        **os.environ,
        "DATABASE_URL": test_database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "ACTIONS_SMS_BACKEND": "twilio",
        "TWILIO_ACCOUNT_SID": fake_twilio.account_sid,
        "TWILIO_AUTH_TOKEN": fake_twilio.auth_token,
        "TWILIO_FROM_NUMBER": TWILIO_FROM,
        "TWILIO_BASE_URL": fake_twilio.base_url,
        "LOG_LEVEL": "info",
    }
    processes: list[Process] = []
    try:
        for n in (1, 2):
            name = f"reminders{n}-{uuid.uuid4().hex[:6]}"
            processes.append(start_worker(env, tmp_path, name, concurrency=4))
        yield [process.log for process in processes]
    finally:
        for process in processes:
            process.stop()


def test_due_reminders_fire_exactly_once_with_two_workers_and_concurrent_ticks(
    tenant_a: Tenant, tenant_b: Tenant, fake_twilio: FakeTwilioServer, two_workers: list[Path]
) -> None:
    with tenant_context(tenant_a):
        due = []
        for n in range(DUE_REMINDERS):
            phone = f"+120255501{n + 10:02d}"
            Contact.objects.create(name=f"Parent {n}", phone=phone)
            due.append(
                Reminder.objects.create(
                    action_id=uuid.uuid4(),
                    due_at=timezone.now() - timedelta(seconds=n),
                    tool="send_sms",
                    arguments={"to": [f"Parent {n}"], "body": f"Reminder {n}"},
                )
            )
        later = Reminder.objects.create(
            action_id=uuid.uuid4(),
            due_at=timezone.now() + timedelta(hours=1),
            tool="send_sms",
            arguments={"to": ["Parent 0"], "body": "Not yet"},
        )

    for _tick in range(4):  # what beat sends each interval: one fan-out to every tenant
        fan_out.delay("actions.fire_due_reminders")

    def all_delivered() -> bool:
        with tenant_context(tenant_a):
            return (
                OutboundMessage.objects.filter(status=OutboundMessage.Status.SENT).count()
                == DUE_REMINDERS
            )

    wait_until(all_delivered, timeout=60)
    time.sleep(1)  # room for a duplicate to show up, were there one

    with tenant_context(tenant_a):
        statuses = {r.pk: r.status for r in Reminder.objects.all()}
    fired_lines = [
        line
        for log in two_workers
        for line in log.read_text().splitlines()
        if line.endswith(" fired") and "reminder " in line
    ]
    assert [statuses[r.pk] for r in due] == [Reminder.Status.FIRED] * DUE_REMINDERS
    assert statuses[later.pk] == Reminder.Status.SCHEDULED
    assert len(fired_lines) == DUE_REMINDERS
    assert sorted(r.body["Body"] for r in fake_twilio.requests) == sorted(
        f"Reminder {n}" for n in range(DUE_REMINDERS)
    )
    both_worked = [log.read_text().count("actions.fire_due_reminders") > 0 for log in two_workers]
    assert both_worked == [True, True]
