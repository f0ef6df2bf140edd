"""Times through the real graph with the built-in model: a time as the schedule becomes a
proposed reminder due then in the tenant's zone; a time inside the message stays in its text."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from actions.demo import demo_seed
from chat.builtin_model.model import OfflineChatModel
from chat.models import PendingAction
from tenants.models import Tenant
from tests.chat.conftest import People, TurnRunner

SEOUL = ZoneInfo("Asia/Seoul")


@pytest.fixture
def academy(in_tenant_a: Tenant, people_a: People, tenant_a: Tenant) -> People:
    demo_seed(schema_name=in_tenant_a.schema_name)
    people_a.staff.email = "sam@alpha.example"
    people_a.staff.save()
    tenant_a.time_zone = "Asia/Seoul"
    tenant_a.save()
    return people_a


def _tomorrow() -> datetime:
    return timezone.now().astimezone(SEOUL) + timedelta(days=1)


@pytest.mark.parametrize(
    ("text", "hour", "minute"),
    [
        ("remind me tomorrow at 4 to call Emma", 16, 0),
        ("remind me tomorrow at half past nine to call Emma", 9, 30),
    ],
)
def test_a_time_as_the_schedule_becomes_a_reminder_due_then_in_the_tenants_zone(
    academy: People, ask: TurnRunner, text: str, hour: int, minute: int
) -> None:
    turn = ask(text, model=OfflineChatModel())

    action = PendingAction.objects.get(conversation=turn.conversation)
    due = datetime.fromisoformat(action.arguments["due_at"]).astimezone(SEOUL)
    assert action.tool == "schedule_reminder"
    assert (due.date(), due.hour, due.minute) == (_tomorrow().date(), hour, minute)


def test_a_time_inside_the_message_is_sent_now_with_its_text(
    academy: People, ask: TurnRunner
) -> None:
    turn = ask("text Emma the forms are due tomorrow at 4pm", model=OfflineChatModel())

    action = PendingAction.objects.get(conversation=turn.conversation)
    assert action.tool == "send_sms"
    assert action.arguments == {"to": ["Emma Wilson"], "body": "The forms are due tomorrow at 4pm"}
