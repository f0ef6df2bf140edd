"""The audit trail is append-only in the database and hash chained per tenant, so a removed,
edited or reordered event is detected (docs/operations.md, "Audit trail")."""

from __future__ import annotations

import json
import logging
import threading
import time
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connections, transaction
from django.test import Client
from django.utils import timezone
from django_celery_beat.models import PeriodicTask
from django_tenants.utils import tenant_context

from chat.audit.selectors import audit_chain_verify
from chat.audit.services import audit_events_redact
from chat.audit.tasks import audit_redact_old_events, audit_verify_chain
from chat.models import ActionEvent, Conversation, PendingAction
from chat.pending_actions import pending_action_decide, pending_action_propose
from core.celery import app
from tenants.models import Tenant
from tenants.roles import APPROVER
from tenants.schedules import periodic_jobs_sync
from tenants.tasks import fan_out
from tests.chat.conftest import People
from tests.chat.tampering import as_superuser_with_triggers_off
from tests.metrics import parse, value
from tests.tenants.factories import make_user

SMS = {"to": ["+12025550100"], "body": "School closes at 1pm today"}


def _propose(requester: User, call: str = "call_1") -> PendingAction:
    return pending_action_propose(
        conversation=Conversation.objects.create(user=requester),
        tool_call_id=call,
        tool="send_sms",
        arguments=SMS,
        requested_by_id=requester.pk,
    )


@pytest.fixture
def trail(people_a: People) -> list[ActionEvent]:
    """Three actions, five events: proposed, approved, proposed, rejected, proposed."""
    first = _propose(people_a.staff, "call_1")
    pending_action_decide(action_id=first.id, user=people_a.approver, decision="approve")
    second = _propose(people_a.staff, "call_2")
    pending_action_decide(action_id=second.id, user=people_a.approver, decision="reject")
    _propose(people_a.staff, "call_3")
    return list(ActionEvent.objects.order_by("seq"))


def _broken_at(seq: int) -> str:
    check = audit_chain_verify()
    assert check.broken is not None, "the tampering went unnoticed"
    assert check.broken.seq == seq, str(check.broken)
    return str(check.broken)


# -- append-only ------------------------------------------------------------------------------


def test_the_application_cannot_update_an_audit_event(trail: list[ActionEvent]) -> None:
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        ActionEvent.objects.filter(pk=trail[1].pk).update(kind=ActionEvent.Kind.REJECTED)

    assert ActionEvent.objects.get(pk=trail[1].pk).kind == ActionEvent.Kind.APPROVED


def test_the_application_cannot_delete_an_audit_event(trail: list[ActionEvent]) -> None:
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        ActionEvent.objects.filter(pk=trail[0].pk).delete()

    assert ActionEvent.objects.count() == len(trail)


def test_redaction_cannot_be_used_to_change_anything_else(trail: list[ActionEvent]) -> None:
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        ActionEvent.objects.filter(pk=trail[1].pk).update(
            data={}, redacted_at=timezone.now(), actor=None
        )

    assert ActionEvent.objects.get(pk=trail[1].pk).actor_id is not None


def test_deleting_an_action_keeps_its_events(trail: list[ActionEvent]) -> None:
    action_id = trail[0].action_id

    PendingAction.objects.filter(pk=action_id).delete()

    kinds = list(ActionEvent.objects.filter(action_id=action_id).values_list("kind", flat=True))
    assert kinds == ["proposed", "approved"]
    assert audit_chain_verify().ok


def test_deleting_a_conversation_keeps_the_events_of_its_actions(
    trail: list[ActionEvent],
) -> None:
    conversation = PendingAction.objects.get(pk=trail[2].action_id).conversation

    conversation.delete()

    assert not PendingAction.objects.filter(pk=trail[2].action_id).exists()
    assert ActionEvent.objects.filter(action_id=trail[2].action_id).count() == 2
    assert ActionEvent.objects.get(pk=trail[2].pk).tool == "send_sms"


# -- the chain --------------------------------------------------------------------------------


def test_a_trail_nobody_touched_verifies(trail: list[ActionEvent]) -> None:
    check = audit_chain_verify()

    assert check.ok and check.events == 5
    assert [event.seq for event in trail] == [1, 2, 3, 4, 5]
    assert trail[1].prev_hash == trail[0].hash


def test_a_removed_event_is_detected(trail: list[ActionEvent]) -> None:
    with as_superuser_with_triggers_off():
        ActionEvent.objects.filter(pk=trail[2].pk).delete()

    assert "missing" in _broken_at(3)


def test_a_removed_newest_event_is_detected(trail: list[ActionEvent]) -> None:
    with as_superuser_with_triggers_off():
        ActionEvent.objects.filter(pk=trail[-1].pk).delete()

    assert "head is at event 5" in _broken_at(5)


def test_an_edited_text_is_detected(trail: list[ActionEvent]) -> None:
    tampered = trail[0].data | {"arguments": {**SMS, "body": "Call +12025550999 now"}}
    with as_superuser_with_triggers_off():
        ActionEvent.objects.filter(pk=trail[0].pk).update(data=tampered)

    assert "edited" in _broken_at(1)


def test_an_edited_actor_is_detected(trail: list[ActionEvent], people_a: People) -> None:
    with as_superuser_with_triggers_off():
        ActionEvent.objects.filter(pk=trail[1].pk).update(
            actor=people_a.staff, actor_username=people_a.staff.username
        )

    assert "content hash" in _broken_at(2)


def test_a_reordered_event_is_detected(trail: list[ActionEvent]) -> None:
    with as_superuser_with_triggers_off():  # swap events 3 and 4
        ActionEvent.objects.filter(pk=trail[2].pk).update(seq=1000)
        ActionEvent.objects.filter(pk=trail[3].pk).update(seq=3)
        ActionEvent.objects.filter(pk=trail[2].pk).update(seq=4)

    _broken_at(3)


# -- concurrent appends -----------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_concurrent_decisions_make_one_chain_without_a_fork(tenant_a: Tenant) -> None:
    with tenant_context(tenant_a):
        staff = make_user(tenant_a, "sam")
        approvers = [make_user(tenant_a, f"approver{n}", role=APPROVER) for n in range(8)]
        actions = [_propose(staff, f"call_{n}") for n in range(8)]
    start = threading.Barrier(len(actions))

    def decide(action: PendingAction, approver: User) -> None:
        try:
            with tenant_context(tenant_a):
                start.wait()
                pending_action_decide(action_id=action.id, user=approver, decision="approve")
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=decide, args=pair) for pair in zip(actions, approvers, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    with tenant_context(tenant_a):
        check = audit_chain_verify()
        assert check.ok, str(check.broken)
        assert check.events == 16
        assert ActionEvent.objects.filter(kind="approved").count() == 8


# -- verification doors: the command and the nightly job --------------------------------------


def test_audit_verify_checks_only_the_tenant_it_is_given(
    trail: list[ActionEvent], tenant_a: Tenant, tenant_b: Tenant, capsys: pytest.CaptureFixture
) -> None:
    with tenant_context(tenant_b):
        staff_b = make_user(tenant_b, "bob")
        _propose(staff_b)
        with as_superuser_with_triggers_off():
            ActionEvent.objects.update(kind="executed")

    call_command("audit_verify", "--tenant", "alpha")

    out = capsys.readouterr().out
    assert out.strip() == "alpha: ok, 5 events"
    with pytest.raises(CommandError, match="broken in beta"):
        call_command("audit_verify", "--tenant", "beta")
    assert "beta: BROKEN at event 1" in capsys.readouterr().out


def test_audit_verify_without_a_tenant_checks_every_tenant(
    trail: list[ActionEvent], tenant_b: Tenant, capsys: pytest.CaptureFixture
) -> None:
    with tenant_context(tenant_b):
        _propose(make_user(tenant_b, "bob"))
        with as_superuser_with_triggers_off():
            ActionEvent.objects.update(kind="executed")

    with pytest.raises(CommandError, match="broken in beta"):
        call_command("audit_verify")

    out = capsys.readouterr().out
    assert "alpha: ok, 5 events" in out and "beta: BROKEN at event 1" in out


def test_the_nightly_check_counts_and_logs_a_broken_chain(
    trail: list[ActionEvent], caplog: pytest.LogCaptureFixture
) -> None:
    before = _breaks()
    assert audit_verify_chain() is True
    with as_superuser_with_triggers_off():
        ActionEvent.objects.filter(pk=trail[3].pk).delete()

    with caplog.at_level(logging.ERROR):
        assert audit_verify_chain() is False

    assert _breaks() - before == 1
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert errors and "alpha" in errors[0].getMessage() and "event 4" in errors[0].getMessage()


# -- retention --------------------------------------------------------------------------------


def test_retention_redacts_the_text_of_old_events_and_the_chain_still_verifies(
    trail: list[ActionEvent], tenant_a: Tenant
) -> None:
    Tenant.objects.filter(pk=tenant_a.pk).update(audit_redact_after_days=30)
    a_month_later = timezone.now() + timedelta(days=31)
    audit_events_redact(older_than_days=30, now=a_month_later)
    fresh = _propose(trail[0].actor, "call_4")  # type: ignore[arg-type]

    redacted = ActionEvent.objects.get(seq=1)
    assert redacted.data == {} and redacted.redacted_at is not None
    assert (redacted.data_hash, redacted.hash) == (trail[0].data_hash, trail[0].hash)
    assert ActionEvent.objects.get(action_id=fresh.id).data["arguments"] == SMS
    check = audit_chain_verify()
    assert check.ok and check.events == 6


def test_the_retention_job_follows_the_tenant_setting(
    trail: list[ActionEvent], tenant_a: Tenant
) -> None:
    assert audit_redact_old_events() == 0, "no setting: nothing is redacted"
    Tenant.objects.filter(pk=tenant_a.pk).update(audit_redact_after_days=30)
    assert audit_redact_old_events() == 0, "a month has not gone by"
    Tenant.objects.filter(pk=tenant_a.pk).update(audit_redact_after_days=0)

    assert audit_redact_old_events() == 5
    assert audit_chain_verify().ok


def test_a_redacted_event_whose_hash_was_changed_is_detected(trail: list[ActionEvent]) -> None:
    audit_events_redact(older_than_days=0)
    with as_superuser_with_triggers_off():
        ActionEvent.objects.filter(seq=2).update(data_hash="0" * 64)

    _broken_at(2)


# -- the beat schedule ------------------------------------------------------------------------


def test_beat_has_a_daily_per_tenant_schedule_for_the_check_and_the_retention(db: None) -> None:
    periodic_jobs_sync()

    for task in ("chat.audit_verify_chain", "chat.audit_redact_old_events"):
        row = PeriodicTask.objects.get(args=json.dumps([task]))
        assert row.task == "tenants.fan_out"
        assert row.interval is not None and row.interval.every == 24 * 3600


def _breaks() -> float:
    text = Client(HTTP_HOST="probe.internal").get("/metrics").content.decode()
    return value(parse(text), "audit_chain_breaks_total")


@pytest.mark.django_db(transaction=True)
def test_the_fanned_out_check_on_a_real_worker_alerts_once_for_the_broken_tenant(
    tenant_a: Tenant, tenant_b: Tenant, celery_worker_thread: None
) -> None:
    with tenant_context(tenant_a):
        _propose(make_user(tenant_a, "sam"))
        with as_superuser_with_triggers_off():
            ActionEvent.objects.update(tool="send_email")
    with tenant_context(tenant_b):
        _propose(make_user(tenant_b, "bob"))  # beta's chain holds
    before = _breaks()

    fan_out.delay("chat.audit_verify_chain")

    deadline = time.monotonic() + 60
    while _breaks() == before and time.monotonic() < deadline:
        time.sleep(0.2)
    with tenant_context(tenant_b):  # the worker runs tasks in order: beta's check is done
        assert app.send_task("chat.audit_verify_chain").get(timeout=60) is True
    assert _breaks() - before == 1
