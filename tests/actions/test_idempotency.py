"""Acceptance 3: executing the same action twice (a retry, a redelivered task) sends once,
thanks to the rows keyed by the action id and the recorded status."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta

from celery.signals import task_postrun
from django.db import connection
from django.test import override_settings
from django.utils import timezone
from django_tenants.utils import tenant_context

from actions.models import Announcement, Contact, ContactGroup, OutboundMessage, Reminder
from actions.services.messages import outbound_message_deliver, outbound_messages_requeue_stale
from actions.tasks import deliver_message, fire_due_reminders
from actions.tools.base import ToolContext
from actions.tools.registry import get_tool
from tenants.models import Tenant
from tests.actions.conftest import wait_until
from tests.actions.factories import make_class_a, make_contact
from tests.actions.test_tool_effects import all_settled, run_tool
from tests.unit.actions.fakes import FakeTwilioServer

Status = OutboundMessage.Status
SMS = {"to": ["Parents - Class A"], "body": "Bring a coat."}


def test_executing_an_action_twice_sends_each_message_once(
    celery_worker_thread: None, tenant_a: Tenant, fake_twilio: FakeTwilioServer
) -> None:
    action_id = uuid.uuid4()
    with tenant_context(tenant_a):
        make_class_a()
        first = run_tool("send_sms", SMS, action_id=action_id)
        wait_until(lambda: all_settled(tenant_a, action_id))
        second = run_tool("send_sms", SMS, action_id=action_id)

    messages = wait_until(lambda: all_settled(tenant_a, action_id))

    assert len(messages) == 2
    assert len(fake_twilio.requests) == 2
    assert [m["id"] for m in first.data["messages"]] == [m["id"] for m in second.data["messages"]]
    assert {m["status"] for m in second.data["messages"]} == {Status.SENT}


def test_re_executing_after_the_group_grew_adds_nobody(in_tenant_a: Tenant) -> None:
    action_id = uuid.uuid4()
    make_class_a()
    run_tool("send_sms", SMS, action_id=action_id)
    make_contact("Late Joiner", phone="+12025550120", groups=("Parents - Class A",))

    run_tool("send_sms", SMS, action_id=action_id)

    assert OutboundMessage.objects.filter(action_id=action_id).count() == 2


def test_two_concurrent_executions_of_one_action_create_one_set_of_messages(
    transactional_db: None, tenant_a: Tenant, outbox_everywhere: None
) -> None:
    action_id = uuid.uuid4()
    with tenant_context(tenant_a):
        make_class_a()
        tool = get_tool("send_sms")
        args = tool.validate(SMS)
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def execute() -> None:
        try:
            with tenant_context(tenant_a):
                barrier.wait()
                tool.execute(args, ToolContext(action_id, requested_by_id=None))
        except BaseException as error:  # surfaced by the assertion below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=execute) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    with tenant_context(tenant_a):
        assert OutboundMessage.objects.filter(action_id=action_id).count() == 2


def test_a_redelivered_delivery_task_does_not_send_again(
    celery_worker_thread: None, tenant_a: Tenant, fake_twilio: FakeTwilioServer
) -> None:
    action_id = uuid.uuid4()
    with tenant_context(tenant_a):
        run_tool("send_sms", {"to": ["+12025550100"], "body": "Once"}, action_id=action_id)
    [message] = wait_until(lambda: all_settled(tenant_a, action_id))

    finished = threading.Event()
    outcomes: list[str] = []

    def record(task_id: str, retval: str, **_: object) -> None:
        if task_id == redelivery_id:
            outcomes.append(retval)
            finished.set()

    task_postrun.connect(record, weak=False)
    try:
        redelivery_id = str(uuid.uuid4())
        with tenant_context(tenant_a):
            deliver_message.apply_async(args=[message.pk], task_id=redelivery_id)
        assert finished.wait(20), "the worker never ran the redelivered task"
    finally:
        task_postrun.disconnect(record)
    with tenant_context(tenant_a):
        message.refresh_from_db()

    assert outcomes == ["skipped"]
    assert len(fake_twilio.requests) == 1
    assert (message.status, message.attempts) == (Status.SENT, 1)


def test_two_workers_racing_for_one_message_send_it_once(
    transactional_db: None, tenant_a: Tenant, fake_twilio: FakeTwilioServer
) -> None:
    with tenant_context(tenant_a):
        run_tool("send_sms", {"to": ["+12025550100"], "body": "Once"}, action_id=uuid.uuid4())
        message = OutboundMessage.objects.get()
    barrier = threading.Barrier(4)
    outcomes: list[str] = []

    def deliver() -> None:
        with tenant_context(tenant_a):
            barrier.wait()
            outcomes.append(outbound_message_deliver(message_id=message.pk).status)
        connection.close()

    threads = [threading.Thread(target=deliver) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["sent", "skipped", "skipped", "skipped"]
    assert len(fake_twilio.requests) == 1


def test_an_announcement_action_executed_twice_publishes_once(in_tenant_a: Tenant) -> None:
    action_id = uuid.uuid4()
    arguments = {"title": "Closed Monday", "body": "Public holiday."}

    first = run_tool("create_announcement", arguments, action_id=action_id)
    second = run_tool("create_announcement", arguments, action_id=action_id)

    assert Announcement.objects.count() == 1
    assert first.data == second.data


def test_a_reminder_action_executed_twice_schedules_once(in_tenant_a: Tenant) -> None:
    action_id = uuid.uuid4()
    arguments = {
        "due_at": "2099-01-01T09:00:00+00:00",
        "tool": "create_announcement",
        "arguments": {"title": "New year", "body": "Happy new year."},
    }
    # A year-ahead limit applies to new reminders, so build the args as validate would.
    tool = get_tool("schedule_reminder")
    args = tool.parse(arguments)

    tool.execute(args, ToolContext(action_id, requested_by_id=None))
    tool.execute(args, ToolContext(action_id, requested_by_id=None))

    assert Reminder.objects.count() == 1


def test_a_queued_message_whose_task_was_lost_is_sent_by_the_next_poll(
    celery_worker_thread: None, tenant_a: Tenant, outbox_everywhere: None
) -> None:
    with tenant_context(tenant_a):
        lost = OutboundMessage.objects.create(
            action_id=uuid.uuid4(), channel="sms", to_address="+12025550100", body="Hi"
        )
        fresh = OutboundMessage.objects.create(
            action_id=uuid.uuid4(), channel="sms", to_address="+12025550101", body="Hi"
        )
        OutboundMessage.objects.filter(pk=lost.pk).update(
            created_at=timezone.now() - timedelta(minutes=30)
        )
        fire_due_reminders.delay()

    def sent() -> bool:
        with tenant_context(tenant_a):
            return OutboundMessage.objects.get(pk=lost.pk).status == Status.SENT

    wait_until(sent)
    with tenant_context(tenant_a):
        assert OutboundMessage.objects.get(pk=fresh.pk).status == Status.QUEUED


@override_settings(ACTIONS_QUEUED_STALE_SECONDS=60)
def test_a_queued_message_counts_as_lost_once_it_has_waited_the_configured_time(
    in_tenant_a: Tenant,
) -> None:
    def queued(seconds_ago: int) -> None:
        message = OutboundMessage.objects.create(
            action_id=uuid.uuid4(), channel="sms", to_address="+12025550100", body="Hi"
        )
        OutboundMessage.objects.filter(pk=message.pk).update(
            created_at=timezone.now() - timedelta(seconds=seconds_ago)
        )

    queued(90)
    queued(30)

    assert outbound_messages_requeue_stale() == 1


def test_re_executing_after_an_opt_out_returns_the_same_messages_instead_of_failing(
    in_tenant_a: Tenant,
) -> None:
    action_id = uuid.uuid4()
    make_class_a()
    first = run_tool("send_sms", {"to": ["Kim Minji"], "body": "Hi"}, action_id=action_id)
    Contact.objects.filter(name="Kim Minji").update(opted_out=True)
    tool = get_tool("send_sms")

    again = tool.execute(
        tool.parse({"to": ["Kim Minji"], "body": "Hi"}), ToolContext(action_id, None)
    )

    assert again.data["messages"] == first.data["messages"]


def test_re_executing_an_announcement_after_its_group_was_renamed_returns_it(
    in_tenant_a: Tenant,
) -> None:
    action_id = uuid.uuid4()
    group = make_class_a()
    arguments = {"title": "T", "body": "B", "audience": "Parents - Class A"}
    first = run_tool("create_announcement", arguments, action_id=action_id)
    ContactGroup.objects.filter(pk=group.pk).update(name="Renamed")
    tool = get_tool("create_announcement")

    again = tool.execute(tool.parse(arguments), ToolContext(action_id, None))

    assert again.data["announcement_id"] == first.data["announcement_id"]
