"""The doors of the notifications app, each from the other tenant's side as well: the task
through a real Celery worker, the settings page, and the admin."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django_tenants.utils import tenant_context

from actions.models import ToolPolicy
from core.celery import MissingTenantError
from notifications.decision_links import decision_link_read
from notifications.models import ApprovalDigest, NotificationPreference
from notifications.services import approvers_notify
from notifications.tasks import notify_pending
from tenants.models import Tenant
from tenants.roles import STAFF, TENANT_ADMIN
from tests.actions.conftest import wait_until
from tests.notifications.conftest import approver_in, propose
from tests.tenants.factories import PASSWORD, http_login, make_user
from tests.unit.actions.fakes import FakeSmtpServer

# -- the tasks ------------------------------------------------------------------------------------


def _sent_to(fake_smtp: FakeSmtpServer) -> list[str]:
    return sorted(address for mail in fake_smtp.messages for address in mail.rcpt_tos)


def test_a_pending_action_reaches_its_tenants_approver_and_nobody_in_another_tenant(
    celery_worker_thread: None, tenant_a: Tenant, tenant_b: Tenant, fake_smtp: FakeSmtpServer
) -> None:
    staff = make_user(tenant_a, "sam", role=STAFF)
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    # Same id and name in the other tenant: ids are per schema, so only the schema tells them apart.
    twin = make_user(tenant_b, "olivia", role="approver", pk=olivia.pk)
    with tenant_context(tenant_b):
        User.objects.filter(pk=twin.pk).update(email="olivia@beta.example")

    action = propose(tenant_a, staff)  # committed: the task is queued after commit

    wait_until(lambda: fake_smtp.messages)
    with tenant_context(tenant_a):
        digest = wait_until(lambda: ApprovalDigest.objects.filter(status="sent").first())
    with tenant_context(tenant_b):
        assert not ApprovalDigest.objects.exists()
    assert _sent_to(fake_smtp) == ["olivia@alpha.example"]
    body = fake_smtp.messages[0].message.get_content()
    [token, *_] = re.findall(r"https://alpha\.localhost/approvals/decide/(\S+)/$", body, re.M)
    with tenant_context(tenant_a):  # a link of alpha's, on alpha's domain, to alpha's action
        assert decision_link_read(token=token).action_id == str(action.pk)
    assert digest.user_id == olivia.pk


def test_through_the_worker_an_approver_of_sms_only_is_not_told_of_an_email_request(
    celery_worker_thread: None, tenant_a: Tenant, fake_smtp: FakeSmtpServer
) -> None:
    staff = make_user(tenant_a, "sam", role=STAFF)
    approver_in(tenant_a, "olivia", "olivia@alpha.example")
    desk = make_user(tenant_a, "desmond", role=STAFF)
    with tenant_context(tenant_a):
        User.objects.filter(pk=desk.pk).update(email="desk@alpha.example")
        sms_desk = Group.objects.create(name="sms desk")
        sms_desk.user_set.add(desk)
        ToolPolicy.objects.update_or_create(
            tool_name="send_sms", defaults={"approver_group": sms_desk}
        )

    propose(tenant_a, staff, tool="send_email")

    wait_until(lambda: fake_smtp.messages)
    with tenant_context(tenant_a):
        wait_until(lambda: ApprovalDigest.objects.filter(status="sent").exists())
        assert list(ApprovalDigest.objects.values_list("user__username", flat=True)) == ["olivia"]
    assert _sent_to(fake_smtp) == ["olivia@alpha.example"]


def test_another_tenants_action_id_tells_nobody(
    tenant_a: Tenant, tenant_b: Tenant, outbox_everywhere: None
) -> None:
    staff = make_user(tenant_a, "sam", role=STAFF)
    approver_in(tenant_b, "olivia", "olivia@beta.example")
    action = propose(tenant_a, staff)

    with tenant_context(tenant_b):
        assert approvers_notify(action_id=str(action.pk)) == 0
        assert not ApprovalDigest.objects.exists()


def test_a_malformed_action_id_tells_nobody(in_tenant_a: Tenant) -> None:
    assert approvers_notify(action_id="not-a-uuid") == 0


@pytest.mark.django_db
def test_the_notify_task_refuses_to_run_without_a_tenant() -> None:
    with pytest.raises(MissingTenantError):
        notify_pending.apply(args=["00000000-0000-0000-0000-000000000000"], throw=True)


# -- the settings page ----------------------------------------------------------------------------

PAGE = "/settings/notifications/"


@pytest.fixture
def alice_a(tenant_a: Tenant, client_a: Client) -> Client:
    make_user(tenant_a, "alice", role="approver")
    assert http_login(client_a, "alice")
    return client_a


def _preference(tenant: Tenant, username: str) -> NotificationPreference | None:
    with tenant_context(tenant):
        return NotificationPreference.objects.filter(user__username=username).first()


def test_a_person_saves_their_own_channel_and_address(alice_a: Client, tenant_a: Tenant) -> None:
    response = alice_a.post(PAGE, {"channel": "sms", "address": "+1 202 555 0177"})

    assert response.status_code == 302 and response["Location"] == f"{PAGE}?saved=1"
    saved = _preference(tenant_a, "alice")
    assert saved is not None
    assert (saved.channel, saved.address, saved.quiet) == ("sms", "+12025550177", False)
    page = alice_a.get(response["Location"])
    assert b'data-testid="saved"' in page.content and b"+12025550177" in page.content


def test_quiet_is_saved_from_the_checkbox(alice_a: Client, tenant_a: Tenant) -> None:
    alice_a.post(PAGE, {"channel": "email", "address": "", "quiet": "on"})

    saved = _preference(tenant_a, "alice")
    assert saved is not None and saved.quiet


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"channel": "pigeon", "address": "x"}, "channel must be one of email, telegram, sms"),
        ({"channel": "email", "address": "not-an-address"}, "is not an e-mail address"),
        ({"channel": "sms", "address": ""}, "SMS needs an address"),
        ({"channel": "sms", "address": "12"}, "has no country code"),
        ({"channel": "telegram", "address": "hello world"}, "is not a Telegram chat id"),
        ({"channel": "email", "address": "a@" + "b" * 260 + ".com"}, "longer than 254"),
    ],
)
def test_a_bad_preference_is_refused_with_the_reason_and_nothing_is_stored(
    alice_a: Client, tenant_a: Tenant, form: dict[str, str], message: str
) -> None:
    response = alice_a.post(PAGE, form)

    assert response.status_code == 400
    assert message in response.content.decode()
    assert _preference(tenant_a, "alice") is None


def test_the_page_asks_a_stranger_to_sign_in(client_a: Client) -> None:
    response = client_a.get(PAGE)

    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_a_session_of_one_tenant_neither_reads_nor_writes_preferences_on_another(
    alice_a: Client, tenant_a: Tenant, tenant_b: Tenant, client_b: Client
) -> None:
    make_user(tenant_b, "alice", role="approver")
    alice_a.post(PAGE, {"channel": "telegram", "address": "@alice_alpha"})
    client_b.cookies = alice_a.cookies  # the same cookie, presented to the other tenant's host

    read = client_b.get(PAGE)
    write = client_b.post(PAGE, {"channel": "telegram", "address": "@stolen_pref"})

    assert read.status_code == 302 and read["Location"].startswith("/login/")
    assert write.status_code in (302, 403)
    assert _preference(tenant_b, "alice") is None
    kept = _preference(tenant_a, "alice")
    assert kept is not None and kept.address == "@alice_alpha"


# -- the admin ------------------------------------------------------------------------------------


def test_a_tenant_admin_sees_and_edits_only_their_tenants_preferences(
    tenant_a: Tenant, tenant_b: Tenant, client_a: Client
) -> None:
    make_user(tenant_a, "adam", role=TENANT_ADMIN)
    ours = make_user(tenant_a, "olivia", role="approver")
    theirs = make_user(tenant_b, "bella", role="approver")
    with tenant_context(tenant_a):
        NotificationPreference.objects.create(user=ours, address="olivia@alpha.example")
    with tenant_context(tenant_b):
        foreign = NotificationPreference.objects.create(user=theirs, address="bella@beta.example")
    client_a.post("/admin/login/?next=/admin/", {"username": "adam", "password": PASSWORD})

    listing = client_a.get("/admin/notifications/notificationpreference/")
    foreign_page = client_a.get(f"/admin/notifications/notificationpreference/{foreign.pk}/change/")

    assert listing.status_code == 200
    assert b"olivia" in listing.content and b"bella" not in listing.content
    # The other tenant's row id means this tenant's row of that id, or nothing: never bella's.
    assert b"bella@beta.example" not in foreign_page.content


def test_the_admin_refuses_an_address_that_does_not_fit_the_channel(
    tenant_a: Tenant, client_a: Client
) -> None:
    make_user(tenant_a, "adam", role=TENANT_ADMIN)
    olivia = make_user(tenant_a, "olivia", role="approver")
    client_a.post("/admin/login/?next=/admin/", {"username": "adam", "password": PASSWORD})

    response = client_a.post(
        "/admin/notifications/notificationpreference/add/",
        {"user": olivia.pk, "channel": "sms", "address": "call me"},
    )

    assert response.status_code == 200  # the form again, with the reason
    assert "is not a phone number" in response.content.decode()
    assert _preference(tenant_a, "olivia") is None
