"""Composing and sending approval digests: what they say, to whom, how often, and that a
retried run never sends the same news twice. The services run here in-process against the
fake SMTP and Twilio servers; test_delivery.py does the same through a real Celery worker."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone
from django_tenants.utils import tenant_context
from pytest_django.fixtures import Settings as SettingsWrapper

from actions.models import ToolPolicy
from notifications.decision_links import decision_link_read
from notifications.models import ApprovalDigest, ApprovalNotice, NotificationPreference
from notifications.services import digest_run
from tenants.models import Tenant
from tests.notifications.conftest import approver_in, propose
from tests.unit.actions.fakes import FakeSmtpServer, FakeTwilioServer

Status = ApprovalDigest.Status


def _run(tenant: Tenant, user: User) -> str:
    with tenant_context(tenant):
        return digest_run(user_id=user.pk).status


def _linked(tenant: Tenant, body: str) -> set[str]:
    """The actions an e-mail's signed links name."""
    with tenant_context(tenant):
        return {
            decision_link_read(token=token).action_id
            for token in re.findall(r"/approvals/decide/(\S+)/$", body, re.M)
        }


def test_the_digest_says_what_the_card_says_and_links_to_the_card_on_the_tenants_domain(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer
) -> None:
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    action = propose(tenant_a, staff_a)

    assert _run(tenant_a, olivia) == Status.SENT

    [mail] = fake_smtp.messages
    body = mail.message.get_content()
    assert mail.rcpt_tos == ["olivia@alpha.example"]
    assert mail.message["Subject"] == "Alpha Academy: 1 request waits for your approval"
    assert "Send SMS — asked by sam" in body
    assert action.description in body
    for purpose in ("Approve", "Reject", "Open"):
        link = rf"^{purpose}: https://alpha\.localhost/approvals/decide/\S+/$"
        assert re.search(link, body, re.M)
    assert "https://alpha.localhost/settings/notifications/" in body


def test_the_email_carries_the_text_the_approver_would_approve_as_the_card_shows_it(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer
) -> None:
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    propose(tenant_a, staff_a, tool="send_email")

    assert _run(tenant_a, olivia) == Status.SENT

    body = fake_smtp.messages[0].message.get_content()
    assert "  To: Kim Minji\n" in body
    assert "  Subject: Friday\n" in body
    assert "  Body: No class on Friday.\n" in body


def test_each_link_is_signed_for_its_tenant_approver_action_version_and_decision(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer
) -> None:
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    action = propose(tenant_a, staff_a)

    _run(tenant_a, olivia)

    body = fake_smtp.messages[0].message.get_content()
    pattern = re.compile(r"^(Approve|Reject|Open): https://\S+/approvals/decide/(\S+)/$", re.M)
    links = dict(pattern.findall(body))
    with tenant_context(tenant_a):
        read = {purpose: decision_link_read(token=token) for purpose, token in links.items()}
    assert {purpose: link.purpose for purpose, link in read.items()} == {
        "Approve": "approve",
        "Reject": "reject",
        "Open": "open",
    }
    for link in read.values():
        assert (link.schema, link.user_id, link.action_id, link.version) == (
            tenant_a.schema_name,
            olivia.pk,
            str(action.pk),
            1,
        )
    # A token carries ids (readable, signed), never the request's text.
    assert "No class on Friday" not in "".join(links.values())


def _sms_only_approver(tenant: Tenant) -> User:
    """``desk``, the one approver of SMS requests (the "sms desk" group) and of nothing else."""
    desk = approver_in(tenant, "desk", "desk@alpha.example")
    with tenant_context(tenant):
        desk.groups.clear()
        sms_desk = Group.objects.create(name="sms desk")
        sms_desk.user_set.add(desk)
        ToolPolicy.objects.update_or_create(
            tool_name="send_sms", defaults={"approver_group": sms_desk}
        )
    return desk


def test_an_approver_of_sms_only_gets_neither_the_text_nor_a_link_of_an_email_request(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer
) -> None:
    desk = _sms_only_approver(tenant_a)
    sms = propose(tenant_a, staff_a, tool="send_sms", call="call-sms")
    email = propose(tenant_a, staff_a, tool="send_email", call="call-email")

    assert _run(tenant_a, desk) == Status.SENT

    body = fake_smtp.messages[0].message.get_content()
    assert "Subject: Friday" not in body and "Send e-mail" not in body
    assert _linked(tenant_a, body) == {str(sms.pk)}
    assert str(email.pk) not in body


def test_a_request_its_approver_may_no_longer_see_is_left_out_of_a_digest_stored_before(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer
) -> None:
    """The digest is stored, then sent (perhaps after retries): what it shows is asked of the
    visibility rule when it is written, not when it was stored."""
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    propose(tenant_a, staff_a, tool="send_sms", call="call-sms")
    email = propose(tenant_a, staff_a, tool="send_email", call="call-email")
    fake_smtp.fail_next("451 4.3.0 Try again later")
    assert _run(tenant_a, olivia) == Status.QUEUED
    with tenant_context(tenant_a):
        assert ApprovalNotice.objects.filter(action_id=email.pk, user=olivia).exists()
        ToolPolicy.objects.update_or_create(
            tool_name="send_email", defaults={"approver_group": Group.objects.create(name="mail")}
        )

    assert _run(tenant_a, olivia) == Status.SENT

    [mail] = fake_smtp.messages
    body = mail.message.get_content()
    assert "1 request waits" in mail.message["Subject"]
    assert "Subject: Friday" not in body and str(email.pk) not in body


def test_a_second_run_within_the_interval_sends_nothing_more(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer
) -> None:
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    propose(tenant_a, staff_a, call="call-1")
    _run(tenant_a, olivia)
    propose(tenant_a, staff_a, call="call-2")

    assert _run(tenant_a, olivia) == "throttled"
    assert len(fake_smtp.messages) == 1


def test_after_the_interval_the_next_digest_lists_only_what_arrived_since(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer, settings: SettingsWrapper
) -> None:
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    first = propose(tenant_a, staff_a, call="call-1")
    _run(tenant_a, olivia)
    second = propose(tenant_a, staff_a, call="call-2")
    third = propose(tenant_a, staff_a, tool="send_email", call="call-3")
    with tenant_context(tenant_a):  # the interval has passed
        earlier = timezone.now() - timedelta(seconds=settings.APPROVAL_NOTIFY_INTERVAL_SECONDS + 1)
        ApprovalDigest.objects.update(created_at=earlier)

    assert _run(tenant_a, olivia) == Status.SENT

    body = fake_smtp.messages[1].message.get_content()
    assert fake_smtp.messages[1].message["Subject"].endswith("2 requests wait for your approval")
    assert _linked(tenant_a, body) == {str(second.pk), str(third.pk)}
    assert str(first.pk) not in body


def test_nothing_is_sent_when_nothing_new_waits(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer
) -> None:
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    propose(tenant_a, staff_a)
    _run(tenant_a, olivia)
    with tenant_context(tenant_a):
        ApprovalDigest.objects.update(created_at=timezone.now() - timedelta(days=1))

    assert _run(tenant_a, olivia) == "nothing_to_tell"
    assert len(fake_smtp.messages) == 1


def test_a_transient_refusal_is_retried_with_the_same_message_id_and_sent_once(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer
) -> None:
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    propose(tenant_a, staff_a)
    fake_smtp.fail_next("451 4.3.0 Try again later")

    with tenant_context(tenant_a):
        first = digest_run(user_id=olivia.pk)
    assert first.status == Status.QUEUED and first.retry_in is not None
    assert _run(tenant_a, olivia) == Status.SENT

    with tenant_context(tenant_a):
        digest = ApprovalDigest.objects.get()
    assert [mail.message["Message-ID"] for mail in fake_smtp.messages] == [
        f"<approvals-{digest.uuid}@countersign>"
    ]
    assert digest.attempts == 2


def test_a_digest_left_sending_by_a_dead_worker_is_marked_failed_and_never_resent(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer, settings: SettingsWrapper
) -> None:
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    propose(tenant_a, staff_a)
    _run(tenant_a, olivia)
    abandoned = timedelta(seconds=settings.ACTIONS_SENDING_ABANDONED_SECONDS + 1)
    abandoned_at = timezone.now() - abandoned
    with tenant_context(tenant_a):
        ApprovalDigest.objects.update(status=Status.SENDING, attempted_at=abandoned_at)

    assert _run(tenant_a, olivia) == "throttled"

    with tenant_context(tenant_a):
        digest = ApprovalDigest.objects.get()
    assert digest.status == Status.FAILED
    assert digest.error == "delivery unknown: the worker sending it stopped"
    assert len(fake_smtp.messages) == 1


def test_a_permanent_refusal_marks_the_digest_failed_with_the_providers_words(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer
) -> None:
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    propose(tenant_a, staff_a)
    fake_smtp.fail_next("550 5.1.1 Mailbox unknown")

    assert _run(tenant_a, olivia) == Status.FAILED

    with tenant_context(tenant_a):
        assert ApprovalDigest.objects.get().error == "SMTP 550 5.1.1 Mailbox unknown"


def test_an_approver_who_chose_sms_gets_one_short_text_with_the_cards_link(
    tenant_a: Tenant, staff_a: User, fake_twilio: FakeTwilioServer
) -> None:
    olivia = approver_in(tenant_a, "olivia", "")
    with tenant_context(tenant_a):
        NotificationPreference.objects.create(user=olivia, channel="sms", address="+12025550177")
    action = propose(tenant_a, staff_a)

    assert _run(tenant_a, olivia) == Status.SENT

    [request] = fake_twilio.requests
    assert request.body["To"] == "+12025550177"
    assert request.body["Body"].startswith("Alpha Academy: 1 request waits for your approval: ")
    assert request.body["Body"].endswith(f"https://alpha.localhost/approvals/#action-{action.pk}")


def test_a_quiet_approver_is_told_nothing(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer
) -> None:
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    with tenant_context(tenant_a):
        NotificationPreference.objects.create(user=olivia, quiet=True)
    propose(tenant_a, staff_a)

    assert _run(tenant_a, olivia) == "nothing_to_tell"
    assert fake_smtp.messages == []


def test_an_approver_of_one_tool_only_is_not_told_of_another_tools_request(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer
) -> None:
    desk = _sms_only_approver(tenant_a)
    propose(tenant_a, staff_a, tool="send_email")

    assert _run(tenant_a, desk) == "nothing_to_tell"
    assert fake_smtp.messages == []


def test_an_approver_is_not_told_of_their_own_request(
    tenant_a: Tenant, fake_smtp: FakeSmtpServer
) -> None:
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    propose(tenant_a, olivia)

    assert _run(tenant_a, olivia) == "nothing_to_tell"
    with tenant_context(tenant_a):
        assert not ApprovalNotice.objects.exists()


@pytest.mark.parametrize("who", ["nobody", "inactive"])
def test_a_run_for_a_missing_or_inactive_user_sends_nothing(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer, who: str
) -> None:
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    propose(tenant_a, staff_a)
    with tenant_context(tenant_a):
        if who == "inactive":
            User.objects.filter(pk=olivia.pk).update(is_active=False)
        user_id = olivia.pk if who == "inactive" else olivia.pk + 1000
        assert digest_run(user_id=user_id).status == "no_user"
    assert fake_smtp.messages == []
