"""Acceptance 6 and the tenancy rule for every door of the actions app: names, numbers,
policies, tasks and admin pages of one tenant are invisible from another."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from django_tenants.utils import tenant_context

from actions.models import Announcement, Contact, OutboundMessage, Reminder
from actions.services.messages import outbound_message_deliver
from actions.tools.base import ToolArgumentsError
from actions.tools.registry import get_tool, tool_policy
from tenants.models import Tenant
from tenants.roles import TENANT_ADMIN
from tenants.tasks import fan_out
from tests.actions.conftest import wait_until
from tests.actions.factories import csv_upload, make_contact
from tests.actions.test_tool_effects import run_tool
from tests.tenants.factories import PASSWORD, make_user


@pytest.fixture
def beta_only_people(tenant_b: Tenant) -> None:
    with tenant_context(tenant_b):
        make_contact("Beta Patient", phone="+12025550161", groups=("Monday Patients",))
        make_contact("Beta Opted Out", phone="+12025550162", opted_out=True)


def test_a_group_name_that_exists_only_in_another_tenant_never_resolves(
    beta_only_people: None, tenant_a: Tenant
) -> None:
    with tenant_context(tenant_a), pytest.raises(ToolArgumentsError) as refusal:
        get_tool("send_sms").validate({"to": ["Monday Patients"], "body": "Hi"})

    assert str(refusal.value) == "to: no contact or group named 'Monday Patients'"


def test_a_contact_name_that_exists_only_in_another_tenant_never_resolves(
    beta_only_people: None, tenant_a: Tenant
) -> None:
    with tenant_context(tenant_a), pytest.raises(ToolArgumentsError) as refusal:
        get_tool("send_email").validate({"to": ["Beta Patient"], "subject": "S", "body": "B"})

    assert str(refusal.value) == "to: no contact or group named 'Beta Patient'"


def test_an_announcement_audience_of_another_tenant_never_resolves(
    beta_only_people: None, tenant_a: Tenant
) -> None:
    with tenant_context(tenant_a), pytest.raises(ToolArgumentsError, match="no group named"):
        get_tool("create_announcement").validate(
            {"title": "T", "body": "B", "audience": "Monday Patients"}
        )


def test_a_group_with_the_same_name_counts_only_this_tenants_members(
    beta_only_people: None, tenant_a: Tenant
) -> None:
    with tenant_context(tenant_a):
        make_contact("Alpha Parent", phone="+12025550171", groups=("Monday Patients",))
        tool = get_tool("send_sms")
        description = tool.describe(tool.validate({"to": ["Monday Patients"], "body": "Hi"}))

    assert description == "SMS to 1 recipient (group 'Monday Patients' (1)): \"Hi\""


def test_another_tenants_opt_out_does_not_leak_into_this_tenant(
    beta_only_people: None, tenant_a: Tenant
) -> None:
    with tenant_context(tenant_a):
        args = get_tool("send_sms").validate({"to": ["+12025550162"], "body": "Hi"})

    assert args.to == ["+12025550162"]  # a plain number here: beta's contact is invisible


def test_tool_policies_are_per_tenant(tenant_a: Tenant, tenant_b: Tenant) -> None:
    with tenant_context(tenant_b):
        policy = tool_policy("send_sms")
        policy.enabled = False
        policy.save()

    with tenant_context(tenant_a):
        assert tool_policy("send_sms").enabled is True


def test_a_delivery_task_sent_from_another_tenant_cannot_touch_this_tenants_message(
    tenant_a: Tenant, tenant_b: Tenant, outbox_everywhere: None
) -> None:
    with tenant_context(tenant_a):
        message = OutboundMessage.objects.create(
            action_id=uuid.uuid4(), channel="sms", to_address="+12025550100", body="Hi"
        )

    with tenant_context(tenant_b):
        attempt = outbound_message_deliver(message_id=message.pk)

    with tenant_context(tenant_a):
        message.refresh_from_db()
    assert attempt.status == "skipped"
    assert (message.status, message.attempts) == (OutboundMessage.Status.QUEUED, 0)


def test_the_reminder_job_fans_out_and_fires_each_tenants_reminders_in_its_own_schema(
    celery_worker_thread: None, tenant_a: Tenant, tenant_b: Tenant
) -> None:
    for tenant in (tenant_a, tenant_b):
        with tenant_context(tenant):
            Reminder.objects.create(
                action_id=uuid.uuid4(),
                due_at=timezone.now() - timedelta(seconds=1),
                tool="create_announcement",
                arguments={"title": f"For {tenant.schema_name}", "body": "Hello"},
            )

    fan_out.delay("actions.fire_due_reminders")

    def titles(tenant: Tenant) -> list[str]:
        with tenant_context(tenant):
            return list(Announcement.objects.values_list("title", flat=True))

    assert wait_until(lambda: titles(tenant_a)) == ["For alpha"]
    assert wait_until(lambda: titles(tenant_b)) == ["For beta"]


# -- admin -------------------------------------------------------------------------------------


def admin_client(client: Client, tenant: Tenant, username: str) -> Client:
    make_user(tenant, username, role=TENANT_ADMIN)
    response = client.post(
        "/admin/login/?next=/admin/", {"username": username, "password": PASSWORD}
    )
    assert response.status_code == 302, "the tenant admin should be able to log in"
    return client


def test_the_contact_admin_of_one_tenant_lists_none_of_anothers_contacts(
    tenant_a: Tenant, tenant_b: Tenant, client_b: Client
) -> None:
    with tenant_context(tenant_a):
        make_contact("Alpha Only Person", phone="+12025550181")
    with tenant_context(tenant_b):
        make_contact("Beta Only Person", phone="+12025550182")
    admin_client(client_b, tenant_b, "bob")

    page = client_b.get("/admin/actions/contact/").content.decode()
    search = client_b.get("/admin/actions/contact/?q=Alpha").content.decode()

    assert "Beta Only Person" in page
    assert "Alpha Only Person" not in page
    assert "Alpha Only Person" not in search


def test_another_tenants_contact_cannot_be_opened_by_id_in_admin(
    tenant_a: Tenant, tenant_b: Tenant, client_b: Client
) -> None:
    with tenant_context(tenant_a):
        alpha_contact = make_contact("Alpha Only Person", phone="+12025550181")
    admin_client(client_b, tenant_b, "bob")

    response = client_b.get(f"/admin/actions/contact/{alpha_contact.pk}/change/", follow=True)

    assert "Alpha Only Person" not in response.content.decode()
    assert "doesn\u2019t exist" in response.content.decode()


def test_the_message_log_of_one_tenant_shows_none_of_anothers_messages(
    tenant_a: Tenant, tenant_b: Tenant, client_b: Client
) -> None:
    with tenant_context(tenant_a):
        OutboundMessage.objects.create(
            action_id=uuid.uuid4(), channel="sms", to_address="+12025550191", body="alpha text"
        )
    admin_client(client_b, tenant_b, "bob")

    page = client_b.get("/admin/actions/outboundmessage/").content.decode()

    assert "+12025550191" not in page
    assert "0 outbound messages" in page


def test_a_csv_import_on_one_tenant_writes_only_into_that_tenant(
    tenant_a: Tenant, tenant_b: Tenant, client_b: Client
) -> None:
    admin_client(client_b, tenant_b, "bob")

    response = client_b.post(
        "/admin/actions/contact/import/",
        {"file": csv_upload("name,phone\nImported Person,+12025550183\n")},
    )

    assert response.status_code == 302
    with tenant_context(tenant_b):
        assert Contact.objects.filter(name="Imported Person").exists()
    with tenant_context(tenant_a):
        assert not Contact.objects.exists()


def test_run_tool_in_one_tenant_leaves_the_other_untouched(
    tenant_a: Tenant, tenant_b: Tenant, outbox_everywhere: None
) -> None:
    with tenant_context(tenant_a):
        run_tool("create_announcement", {"title": "A", "body": "B"}, action_id=uuid.uuid4())

    with tenant_context(tenant_b):
        assert not Announcement.objects.exists()
