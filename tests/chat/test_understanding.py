"""The offline model's understanding against a real tenant: fuzzy recipients, "me", questions,
the tenant's time zone, and isolation between tenants."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from django_tenants.utils import tenant_context

from actions.demo import demo_seed
from actions.models import Contact
from chat.builtin_model.understanding import Understanding, understand
from chat.builtin_model.understanding.context import classifier, load_directory
from tenants.models import Tenant
from tests.chat.conftest import People

SEOUL = ZoneInfo("Asia/Seoul")


@pytest.fixture
def academy(in_tenant_a: Tenant, people_a: People) -> People:
    """Tenant A with the demo academy's contacts and groups, and staff with an e-mail."""
    demo_seed(schema_name=in_tenant_a.schema_name)
    people_a.staff.email = "sam@alpha.example"
    people_a.staff.save()
    return people_a


def _understand(
    text: str, tenant: Tenant, user: User, history: list[tuple[str, str]] | None = None
) -> Understanding:
    directory, tz = load_directory(schema=tenant.schema_name, user_id=user.pk)
    return understand(
        text,
        history=history or [],  # type: ignore[arg-type]
        directory=directory,
        now=timezone.now(),
        tz=tz,
        classifier=classifier(),
    )


def test_it_finds_a_contact_by_first_name(academy: People, tenant_a: Tenant) -> None:
    found = _understand("Can you text Emma that class moved to 3pm?", tenant_a, academy.staff)

    assert (found.tool, found.arguments) == (
        "send_sms",
        {"to": ["Emma Wilson"], "body": "Class moved to 3pm"},
    )


def test_it_finds_a_contact_by_surname(academy: People, tenant_a: Tenant) -> None:
    found = _understand("email Taylor that the printer is fixed", tenant_a, academy.staff)

    assert found.tool == "send_email" and found.arguments["to"] == ["James Taylor"]


def test_it_finds_a_contact_by_korean_name(academy: People, tenant_a: Tenant) -> None:
    found = _understand("민지에게 내일 휴교라고 문자 보내줘", tenant_a, academy.staff)

    assert found.arguments == {"to": ["김민지 (Kim Minji)"], "body": "내일 휴교입니다"}


def test_it_finds_a_group_from_a_phrase(academy: People, tenant_a: Tenant) -> None:
    found = _understand(
        "text the parents of class A that school starts at 10 tomorrow", tenant_a, academy.staff
    )

    assert found.arguments["to"] == ["Parents - Class A"]


def test_it_asks_which_one_when_two_contacts_are_close(academy: People, tenant_a: Tenant) -> None:
    Contact.objects.create(name="Emma Park", phone="+12025550120")

    found = _understand("send a text to Emma saying see you soon", tenant_a, academy.staff)

    assert found.tool is None
    assert found.question == "Did you mean Emma Park or Emma Wilson?"


def test_the_answer_to_which_one_completes_the_request(academy: People, tenant_a: Tenant) -> None:
    Contact.objects.create(name="Emma Park", phone="+12025550120")
    asked = "send a text to Emma saying see you soon"
    question = _understand(asked, tenant_a, academy.staff).question
    assert question is not None

    found = _understand(
        "Emma Wilson", tenant_a, academy.staff, [("user", asked), ("assistant", question)]
    )

    assert found.arguments == {"to": ["Emma Wilson"], "body": "See you soon"}


def test_a_reminder_for_me_goes_to_the_requesters_email(academy: People, tenant_a: Tenant) -> None:
    found = _understand("remind me tomorrow at 9am to call Emma", tenant_a, academy.staff)

    assert found.tool == "schedule_reminder"
    assert found.arguments["tool"] == "send_email"
    assert found.arguments["arguments"]["to"] == ["sam@alpha.example"]
    assert found.arguments["arguments"]["body"] == "Call Emma"


def test_an_sms_to_me_is_declined_with_a_sentence(academy: People, tenant_a: Tenant) -> None:
    found = _understand("text me that the bus is late", tenant_a, academy.staff)

    assert found.tool is None and found.question is not None
    assert "e-mail" in found.question


def test_dates_are_read_in_the_tenants_time_zone(academy: People, tenant_a: Tenant) -> None:
    tenant_a.time_zone = "Asia/Seoul"
    tenant_a.save()

    found = _understand(
        "내일 오전 9시에 민지에게 서류 가져오라고 리마인드 보내줘", tenant_a, academy.staff
    )

    due = datetime.fromisoformat(found.arguments["due_at"])
    assert (due.astimezone(SEOUL).hour, due.astimezone(SEOUL).minute) == (9, 0)
    assert found.arguments["arguments"]["to"] == ["김민지 (Kim Minji)"]


def test_a_tenant_without_a_chosen_zone_uses_the_deployments(tenant_a: Tenant) -> None:
    _, tz = load_directory(schema=tenant_a.schema_name, user_id=None)

    assert tz.key == "UTC"


def test_another_tenants_contacts_and_groups_are_never_matched(
    academy: People, tenant_a: Tenant, tenant_b: Tenant
) -> None:
    with tenant_context(tenant_b):
        demo_seed(schema_name="acme")  # the clinic: Grace Lee, group "Nurses", …
        Contact.objects.create(name="Emma Stone", phone="+12025550130")

    directory, _ = load_directory(schema=tenant_a.schema_name, user_id=None)
    found = _understand("text Grace and the nurses that the ward is open", tenant_a, academy.staff)

    assert "Grace Lee" not in {c.name for c in directory.contacts}
    assert "Nurses" not in directory.groups
    assert found.arguments.get("to") != ["Grace Lee", "Nurses"]
    assert _understand("text Emma that hi", tenant_a, academy.staff).arguments["to"] == [
        "Emma Wilson"
    ]


@pytest.mark.parametrize("text", ["", "   ", "?!", "ㅋㅋㅋ", "x" * 4000, "text" * 1000])
def test_any_input_gets_an_understanding_without_failing(
    academy: People, tenant_a: Tenant, text: str
) -> None:
    found = _understand(text or " ", tenant_a, academy.staff)

    assert found.label
