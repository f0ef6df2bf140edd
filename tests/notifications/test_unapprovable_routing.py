"""A request nobody but its requester may approve is routed at once by the tenant's
``unapprovable_requests`` setting (docs/web.md, "Nobody else can approve"): ``notify_admins``
tells every tenant admin through the approvers' digest, ``reject`` refuses it when proposed."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django_tenants.utils import tenant_context

from chat.agent.outcome_replies import not_run_reply
from chat.models import ActionEvent, PendingAction
from chat.presenters import action_card
from notifications.models import ApprovalDigest, ApprovalNotice
from notifications.services import approvers_notify, digest_run
from tenants.models import Tenant
from tenants.roles import TENANT_ADMIN
from tests.actions.conftest import wait_until
from tests.notifications.conftest import approver_in, propose
from tests.tenants.factories import make_user
from tests.unit.actions.fakes import FakeSmtpServer

NOBODY_ELSE = (
    "Nobody else may approve this, so it was not sent: ask a tenant admin to add an approver"
)


def _admin_in(tenant: Tenant, username: str, email: str) -> User:
    user = make_user(tenant, username, role=TENANT_ADMIN)
    with tenant_context(tenant):
        User.objects.filter(pk=user.pk).update(email=email)
        user.refresh_from_db()
    return user


def _route(tenant: Tenant, setting: str) -> None:
    Tenant.objects.filter(pk=tenant.pk).update(unapprovable_requests=setting)


def _notify(tenant: Tenant, action: PendingAction) -> int:
    with tenant_context(tenant):
        return approvers_notify(action_id=str(action.pk))


def _run(tenant: Tenant, user: User) -> str:
    with tenant_context(tenant):
        return digest_run(user_id=user.pk).status


def test_by_default_tenant_admins_get_the_request_nobody_else_can_approve_in_a_digest_at_once(
    tenant_a: Tenant, fake_smtp: FakeSmtpServer
) -> None:
    april = approver_in(tenant_a, "april", "april@alpha.example")  # the only approver
    tina = _admin_in(tenant_a, "tina", "tina@alpha.example")
    action = propose(tenant_a, april)

    assert _notify(tenant_a, action) == 1  # tina; april may not decide her own request
    assert _run(tenant_a, tina) == "sent"

    [mail] = fake_smtp.messages
    body = mail.message.get_content()
    assert mail.rcpt_tos == ["tina@alpha.example"]
    assert "Send SMS — asked by april" in body
    assert action.description in body
    assert "Nobody else can approve this" in body
    assert "Approve:" not in body  # an admin is told, not asked to decide
    with tenant_context(tenant_a):
        assert PendingAction.objects.get(pk=action.pk).status == PendingAction.Status.PENDING


def test_under_reject_the_request_ends_at_once_with_the_clear_words_and_nothing_is_sent(
    tenant_a: Tenant, fake_smtp: FakeSmtpServer
) -> None:
    _route(tenant_a, "reject")
    april = approver_in(tenant_a, "april", "april@alpha.example")
    tina = _admin_in(tenant_a, "tina", "tina@alpha.example")

    action = propose(tenant_a, april)

    with tenant_context(tenant_a):
        action = PendingAction.objects.get(pk=action.pk)
        assert action.status == PendingAction.Status.REJECTED
        assert action.decided_by is None
        assert NOBODY_ELSE in not_run_reply(action)
        assert NOBODY_ELSE in action_card(action, viewer=april).outcome
        [refused] = ActionEvent.objects.filter(action=action, kind=ActionEvent.Kind.REJECTED)
        assert refused.actor_id is None
        assert refused.data["reason"] == "no_eligible_approver"
    assert _notify(tenant_a, action) == 0
    assert _run(tenant_a, tina) == "nothing_to_tell"
    assert _run(tenant_a, april) == "nothing_to_tell"
    assert fake_smtp.messages == []


@pytest.mark.parametrize("setting", ["notify_admins", "reject"])
def test_a_request_someone_else_can_approve_is_untouched_and_admins_are_not_told(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer, setting: str
) -> None:
    _route(tenant_a, setting)
    approver_in(tenant_a, "april", "april@alpha.example")
    tina = _admin_in(tenant_a, "tina", "tina@alpha.example")

    action = propose(tenant_a, staff_a)

    with tenant_context(tenant_a):
        assert PendingAction.objects.get(pk=action.pk).status == PendingAction.Status.PENDING
    assert _notify(tenant_a, action) == 1  # april only
    assert _run(tenant_a, tina) == "nothing_to_tell"
    with tenant_context(tenant_a):
        assert not ApprovalNotice.objects.filter(user=tina).exists()


def test_another_tenants_setting_and_admins_are_never_involved(
    tenant_a: Tenant, tenant_b: Tenant, fake_smtp: FakeSmtpServer
) -> None:
    _route(tenant_b, "reject")
    april = approver_in(tenant_a, "april", "april@alpha.example")
    _admin_in(tenant_a, "tina", "tina@alpha.example")
    tom = _admin_in(tenant_b, "tom", "tom@beta.example")

    action = propose(tenant_a, april)

    with tenant_context(tenant_a):
        assert PendingAction.objects.get(pk=action.pk).status == PendingAction.Status.PENDING
    assert _notify(tenant_a, action) == 1  # tina, not tom
    assert _run(tenant_b, tom) == "nothing_to_tell"
    assert all("tom@beta.example" not in mail.rcpt_tos for mail in fake_smtp.messages)

    _route(tenant_a, "reject")
    _route(tenant_b, "notify_admins")
    bob = approver_in(tenant_b, "bob", "bob@beta.example")
    theirs = propose(tenant_b, bob)
    with tenant_context(tenant_b):
        assert PendingAction.objects.get(pk=theirs.pk).status == PendingAction.Status.PENDING


def test_through_the_worker_the_admins_digest_goes_out_once_the_request_is_committed(
    celery_worker_thread: None, tenant_a: Tenant, tenant_b: Tenant, fake_smtp: FakeSmtpServer
) -> None:
    april = approver_in(tenant_a, "april", "april@alpha.example")
    _admin_in(tenant_a, "tina", "tina@alpha.example")
    _admin_in(tenant_b, "tom", "tom@beta.example")

    action = propose(tenant_a, april)  # committed: notify_pending is queued after commit

    wait_until(lambda: fake_smtp.messages)
    with tenant_context(tenant_a):
        digest = wait_until(lambda: ApprovalDigest.objects.filter(status="sent").first())
        assert digest.user.username == "tina"
    with tenant_context(tenant_b):
        assert not ApprovalDigest.objects.exists()
    [mail] = fake_smtp.messages
    assert mail.rcpt_tos == ["tina@alpha.example"]
    assert action.description in mail.message.get_content()
