"""Acceptance 2: a reminder due in the past fires once, even with two beat ticks and two
workers; one due later does not fire early. Plus what firing does and how it fails."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta

from django.db import connection
from django.utils import timezone
from django_tenants.utils import tenant_context

from actions.due_reminders import reminders_fire_due
from actions.models import Announcement, Contact, OutboundMessage, Reminder
from actions.tasks import fire_due_reminders
from tenants.models import Tenant
from tests.actions.conftest import wait_until
from tests.actions.factories import make_class_a
from tests.unit.actions.fakes import FakeTwilioServer

Status = Reminder.Status


def remind(
    *, due_in: timedelta, tool: str = "create_announcement", arguments: dict | None = None
) -> Reminder:
    """A reminder as an approved schedule_reminder action leaves it."""
    return Reminder.objects.create(
        action_id=uuid.uuid4(),
        due_at=timezone.now() + due_in,
        tool=tool,
        arguments=arguments or {"title": "Fire drill", "body": "At 10:00."},
    )


def test_a_due_reminder_fires_once_however_often_the_poller_runs(in_tenant_a: Tenant) -> None:
    reminder = remind(due_in=-timedelta(minutes=1))

    fired = [reminders_fire_due(), reminders_fire_due()]

    reminder.refresh_from_db()
    assert fired == [1, 0]
    assert reminder.status == Status.FIRED
    assert reminder.fired_at is not None
    assert reminder.result["summary"] == 'Announcement "Fire drill" published'
    assert Announcement.objects.get().action_id == reminder.action_id


def test_a_reminder_due_later_does_not_fire_early(in_tenant_a: Tenant) -> None:
    later = remind(due_in=timedelta(minutes=5))

    fired = reminders_fire_due()

    later.refresh_from_db()
    assert fired == 0
    assert later.status == Status.SCHEDULED
    assert not Announcement.objects.exists()


def test_a_reminder_fires_when_its_time_comes(in_tenant_a: Tenant) -> None:
    reminder = remind(due_in=timedelta(minutes=5))

    fired = reminders_fire_due(now=reminder.due_at)

    assert fired == 1


def test_a_reminder_whose_action_became_invalid_fails_with_the_reason(
    in_tenant_a: Tenant,
) -> None:
    make_class_a()
    reminder = remind(
        due_in=-timedelta(seconds=1),
        tool="send_sms",
        arguments={"to": ["Kim Minji"], "body": "Hi"},
    )
    Contact.objects.filter(name="Kim Minji").update(opted_out=True)  # after the approval

    reminders_fire_due()

    reminder.refresh_from_db()
    assert reminder.status == Status.FAILED
    assert reminder.error == "to: Kim Minji has opted out of messages"
    assert not OutboundMessage.objects.exists()


def test_a_cancelled_reminder_never_fires(in_tenant_a: Tenant) -> None:
    reminder = remind(due_in=-timedelta(minutes=1))
    Reminder.objects.filter(pk=reminder.pk).update(status=Status.CANCELLED)

    assert reminders_fire_due() == 0
    assert not Announcement.objects.exists()


def test_two_pollers_racing_fire_each_due_reminder_exactly_once(
    transactional_db: None, tenant_a: Tenant
) -> None:
    with tenant_context(tenant_a):
        reminders = [remind(due_in=-timedelta(seconds=i)) for i in range(20)]
    barrier = threading.Barrier(2)
    counts: list[int] = []

    def poll() -> None:
        with tenant_context(tenant_a):
            barrier.wait()
            counts.append(reminders_fire_due())
        connection.close()

    threads = [threading.Thread(target=poll) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sum(counts) == len(reminders)
    with tenant_context(tenant_a):
        assert Announcement.objects.count() == len(reminders)
        assert set(Reminder.objects.values_list("status", flat=True)) == {Status.FIRED}


def test_a_fired_sms_reminder_is_delivered_by_the_worker(
    celery_worker_thread: None, tenant_a: Tenant, fake_twilio: FakeTwilioServer
) -> None:
    with tenant_context(tenant_a):
        make_class_a()
        remind(
            due_in=-timedelta(seconds=1),
            tool="send_sms",
            arguments={"to": ["Parents - Class A"], "body": "Concert tonight."},
        )
        fire_due_reminders.delay()

    def delivered() -> bool:
        with tenant_context(tenant_a):
            return OutboundMessage.objects.filter(status=OutboundMessage.Status.SENT).count() == 2

    wait_until(delivered)
    assert sorted(r.body["To"] for r in fake_twilio.requests) == ["+12025550101", "+12025550102"]
