"""The tenant admin of the actions app: contact CSV import, searchable filtered lists, tool
policies, and who may use them."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from django_tenants.utils import tenant_context

from actions.models import Contact, ContactGroup, OutboundMessage, Reminder, ToolPolicy
from tenants.models import Tenant
from tenants.roles import STAFF, TENANT_ADMIN
from tests.actions.factories import csv_upload, make_contact
from tests.tenants.factories import PASSWORD, make_user

IMPORT_URL = "/admin/actions/contact/import/"
GOOD_CSV = (
    "name,phone,email,telegram_chat_id,groups,opted_out\n"
    "김민지 (Kim Minji),+1 202 555 0101,minji@parents.example,100101,Parents A;Choir,no\n"
    "Emma Wilson,+12025550102,,,Parents A,yes\n"
)


@pytest.fixture
def admin_a(tenant_a: Tenant, client_a: Client) -> Client:
    make_user(tenant_a, "alice", role=TENANT_ADMIN)
    client_a.post("/admin/login/?next=/admin/", {"username": "alice", "password": PASSWORD})
    return client_a


def test_a_csv_import_creates_contacts_and_their_groups(admin_a: Client, tenant_a: Tenant) -> None:
    response = admin_a.post(IMPORT_URL, {"file": csv_upload(GOOD_CSV)}, follow=True)

    assert "2 created, 0 updated; new groups: Parents A, Choir" in response.content.decode()
    with tenant_context(tenant_a):
        minji = Contact.objects.get(phone="+12025550101")
        assert minji.name == "김민지 (Kim Minji)"
        assert sorted(minji.groups.values_list("name", flat=True)) == ["Choir", "Parents A"]
        assert Contact.objects.get(name="Emma Wilson").opted_out is True


def test_a_csv_import_updates_the_contact_with_the_same_phone(
    admin_a: Client, tenant_a: Tenant
) -> None:
    with tenant_context(tenant_a):
        make_contact("Old Name", phone="+12025550101")

    admin_a.post(IMPORT_URL, {"file": csv_upload(GOOD_CSV)})

    with tenant_context(tenant_a):
        assert list(
            Contact.objects.filter(phone="+12025550101").values_list("name", flat=True)
        ) == ["김민지 (Kim Minji)"]


def test_a_csv_with_bad_rows_names_each_one_and_imports_nothing(
    admin_a: Client, tenant_a: Tenant
) -> None:
    bad = (
        "name,phone,email,opted_out\n"
        "Good Row,+12025550101,,no\n"
        ",+12025550102,,no\n"
        "Bad Phone,+1 202 555,,no\n"
        "Bad Mail,,kim@,maybe\n"
        "Twice,+1 202 555 0101,,\n"
    )

    response = admin_a.post(IMPORT_URL, {"file": csv_upload(bad)})

    page = response.content.decode()
    assert response.status_code == 400
    assert "Nothing was imported" in page
    for error in (
        "row 3: name is empty",
        "row 4: phone &#x27;+1 202 555&#x27; is too short for its country",
        "row 5: email &#x27;kim@&#x27; is not a valid e-mail address; opted_out must be yes or "
        "no, got &#x27;maybe&#x27;",
        "row 6: +12025550101 is already used by row 2",
    ):
        assert error in page
    with tenant_context(tenant_a):
        assert not Contact.objects.exists()
        assert not ContactGroup.objects.exists()


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ("", "The submitted file is empty."),  # Django's own upload check
        ("\n\n", "the file is empty; the first row must name the columns"),
        ("name,fax\nKim,1\n", "unknown column &#x27;fax&#x27;; expected columns: name, phone"),
        ("phone\n+12025550101\n", "the header has no &#x27;name&#x27; column"),
        ("name\n", "the file has a header but no contacts"),
        ("name,phone\nKim,+12025550101,extra\n", "row 2: has more cells than the header has"),
    ],
)
def test_a_malformed_csv_is_refused_with_a_specific_message(
    admin_a: Client, content: str, error: str
) -> None:
    response = admin_a.post(IMPORT_URL, {"file": csv_upload(content)})

    assert error in response.content.decode()


def test_a_file_that_is_not_utf8_is_refused(admin_a: Client) -> None:
    upload = SimpleUploadedFile("contacts.csv", "name\nJosé\n".encode("latin-1"))

    response = admin_a.post(IMPORT_URL, {"file": upload})

    assert "the file is not UTF-8 text" in response.content.decode()


def test_staff_cannot_reach_the_contact_import(tenant_a: Tenant, client_a: Client) -> None:
    make_user(tenant_a, "sam", role=STAFF)
    client_a.post("/login/", {"username": "sam", "password": PASSWORD})

    response = client_a.post(IMPORT_URL, {"file": csv_upload(GOOD_CSV)})

    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")
    with tenant_context(tenant_a):
        assert not Contact.objects.exists()


@pytest.mark.parametrize(
    "url",
    [
        "/admin/actions/contact/?q=kim&opted_out__exact=1",
        "/admin/actions/contactgroup/?q=parents",
        "/admin/actions/announcement/?q=trip&published_at__year=2026",
        "/admin/actions/outboundmessage/?q=555&status__exact=failed&channel__exact=sms",
        "/admin/actions/outboundmessage/?created_at__year=2026&created_at__month=1",
        "/admin/actions/reminder/?status__exact=scheduled&tool__exact=send_sms",
        "/admin/actions/toolpolicy/?enabled__exact=1",
    ],
)
def test_every_list_is_searchable_and_filterable(admin_a: Client, url: str) -> None:
    response = admin_a.get(url)

    assert response.status_code == 200
    assert "?e=1" not in response.get("Location", "")  # an unknown filter redirects with e=1


def test_the_message_list_filters_by_status(admin_a: Client, tenant_a: Tenant) -> None:
    with tenant_context(tenant_a):
        for status, address in (("failed", "+12025550111"), ("sent", "+12025550112")):
            OutboundMessage.objects.create(
                action_id=uuid.uuid4(),
                channel="sms",
                to_address=address,
                body="x",
                status=status,
            )

    page = admin_a.get("/admin/actions/outboundmessage/?status__exact=failed").content.decode()

    assert "+12025550111" in page
    assert "+12025550112" not in page


def test_the_policy_list_shows_a_row_for_every_tool(admin_a: Client, tenant_a: Tenant) -> None:
    page = admin_a.get("/admin/actions/toolpolicy/").content.decode()

    for name in ("send_sms", "send_telegram", "send_email", "create_announcement"):
        assert name in page
    with tenant_context(tenant_a):
        assert ToolPolicy.objects.count() == 5


def test_a_tenant_admin_can_change_a_tool_policy(admin_a: Client, tenant_a: Tenant) -> None:
    admin_a.get("/admin/actions/toolpolicy/")
    with tenant_context(tenant_a):
        policy = ToolPolicy.objects.get(tool_name="send_sms")

    response = admin_a.post(
        f"/admin/actions/toolpolicy/{policy.pk}/change/",
        {
            "enabled": "",
            "approver_group": "",
            "allow_self_approval": "on",
            "max_recipients": 7,
            "expires_after_hours": 48,
            "edit_confirmed_by": "another_approver",
        },
    )

    assert response.status_code == 302
    with tenant_context(tenant_a):
        policy.refresh_from_db()
    assert (policy.enabled, policy.allow_self_approval, policy.max_recipients) == (False, True, 7)
    assert policy.expires_after_hours == 48
    assert policy.edit_confirmed_by == "another_approver"


@pytest.mark.parametrize("hours", ["0", "721", "a day"])
def test_a_tool_policys_waiting_time_outside_1_to_720_hours_is_refused_in_admin(
    admin_a: Client, tenant_a: Tenant, hours: str
) -> None:
    admin_a.get("/admin/actions/toolpolicy/")
    with tenant_context(tenant_a):
        policy = ToolPolicy.objects.get(tool_name="send_sms")

    response = admin_a.post(
        f"/admin/actions/toolpolicy/{policy.pk}/change/",
        {"enabled": "on", "approver_group": "", "max_recipients": 50, "expires_after_hours": hours},
    )

    assert response.status_code == 200  # the form again, with the error
    assert "expires_after_hours" in response.context["adminform"].form.errors
    with tenant_context(tenant_a):
        policy.refresh_from_db()
    assert policy.expires_after_hours == 24


def contact_form(**fields: str) -> dict[str, str]:
    return {"name": "Kim Minji", "phone": "", "email": "", "telegram_chat_id": "", **fields}


def test_a_phone_typed_in_admin_is_stored_in_e164(admin_a: Client, tenant_a: Tenant) -> None:
    response = admin_a.post("/admin/actions/contact/add/", contact_form(phone="+1 (202) 555-0101"))

    assert response.status_code == 302
    with tenant_context(tenant_a):
        assert Contact.objects.get().phone == "+12025550101"


def test_a_bad_phone_typed_in_admin_is_refused_saying_why(
    admin_a: Client, tenant_a: Tenant
) -> None:
    response = admin_a.post("/admin/actions/contact/add/", contact_form(phone="555-0101"))

    assert response.status_code == 200
    assert "has no country code; start it with + and the country code" in (
        response.content.decode().replace("&#x27;", "'")
    )
    with tenant_context(tenant_a):
        assert not Contact.objects.exists()


def test_a_fired_reminder_can_no_longer_be_moved_or_re_armed(
    admin_a: Client, tenant_a: Tenant
) -> None:
    with tenant_context(tenant_a):
        reminder = Reminder.objects.create(
            action_id=uuid.uuid4(),
            due_at=timezone.now(),
            tool="create_announcement",
            arguments={"title": "T", "body": "B"},
            status=Reminder.Status.FIRED,
        )

    admin_a.post(
        f"/admin/actions/reminder/{reminder.pk}/change/",
        {"due_at_0": "2099-01-01", "due_at_1": "09:00:00", "status": "scheduled"},
    )

    with tenant_context(tenant_a):
        reminder.refresh_from_db()
    assert reminder.status == Reminder.Status.FIRED
    assert reminder.due_at.year != 2099


def test_the_cancel_action_stops_only_scheduled_reminders(
    admin_a: Client, tenant_a: Tenant
) -> None:
    with tenant_context(tenant_a):
        reminders = [
            Reminder.objects.create(
                action_id=uuid.uuid4(),
                due_at=timezone.now() + timedelta(days=1),
                tool="create_announcement",
                arguments={"title": "T", "body": "B"},
                status=status,
            )
            for status in (Reminder.Status.SCHEDULED, Reminder.Status.FIRED)
        ]

    admin_a.post(
        "/admin/actions/reminder/",
        {"action": "cancel", "_selected_action": [str(r.pk) for r in reminders]},
    )

    with tenant_context(tenant_a):
        statuses = [Reminder.objects.get(pk=r.pk).status for r in reminders]
    assert statuses == [Reminder.Status.CANCELLED, Reminder.Status.FIRED]


def test_a_malformed_telegram_chat_id_typed_in_admin_is_refused(
    admin_a: Client, tenant_a: Tenant
) -> None:
    response = admin_a.post("/admin/actions/contact/add/", contact_form(telegram_chat_id="kim"))

    assert "a Telegram chat id is a number or an @username" in response.content.decode()
    with tenant_context(tenant_a):
        assert not Contact.objects.exists()
