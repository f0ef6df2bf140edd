"""Whole turns through the real graph with the offline model: natural requests become pending
actions, a missing slot becomes one question, and the next message completes it."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from django_tenants.utils import tenant_context

from actions.demo import demo_seed
from actions.models import Contact
from chat.builtin_model.model import OfflineChatModel
from chat.events.payloads import done_payload
from chat.models import PendingAction
from tenants.models import Tenant
from tests.chat.conftest import People, TurnRunner

SEOUL = ZoneInfo("Asia/Seoul")


@pytest.fixture
def academy(in_tenant_a: Tenant, people_a: People) -> People:
    demo_seed(schema_name=in_tenant_a.schema_name)
    people_a.staff.email = "sam@alpha.example"
    people_a.staff.save()
    return people_a


def test_it_turns_a_casual_text_request_into_a_pending_sms(
    academy: People, ask: TurnRunner
) -> None:
    turn = ask("Can you text Emma that class moved to 3pm?", model=OfflineChatModel())

    action = PendingAction.objects.get(conversation=turn.conversation)
    assert action.tool == "send_sms"
    assert action.arguments == {"to": ["Emma Wilson"], "body": "Class moved to 3pm"}


def test_it_schedules_a_reminder_to_me_at_nine_in_the_tenants_zone(
    academy: People, ask: TurnRunner, tenant_a: Tenant
) -> None:
    tenant_a.time_zone = "Asia/Seoul"
    tenant_a.save()

    turn = ask("remind me tomorrow at 9am to call Emma", model=OfflineChatModel())

    action = PendingAction.objects.get(conversation=turn.conversation)
    due = datetime.fromisoformat(action.arguments["due_at"]).astimezone(SEOUL)
    tomorrow = (timezone.now().astimezone(SEOUL) + timedelta(days=1)).date()
    assert action.tool == "schedule_reminder"
    assert (due.date(), due.hour, due.minute) == (tomorrow, 9, 0)
    assert action.arguments["arguments"]["to"] == ["sam@alpha.example"]
    assert action.description.startswith(f"At {tomorrow:%Y-%m-%d} 09:00 KST")


def test_an_ambiguous_name_is_asked_about_and_the_answer_completes_the_sms(
    academy: People, ask: TurnRunner
) -> None:
    Contact.objects.create(name="Emma Park", phone="+12025550120")

    first = ask("send a text to Emma saying the bus is late", model=OfflineChatModel())
    second = ask("Emma Wilson", model=OfflineChatModel(), conversation=first.conversation)

    assert first.reply is not None
    assert first.reply.content == "Did you mean Emma Park or Emma Wilson?"
    action = PendingAction.objects.get(conversation=first.conversation)
    assert second.events.of("pending") == [action]
    assert action.arguments == {"to": ["Emma Wilson"], "body": "The bus is late"}


def test_a_missing_body_is_asked_for_and_the_next_message_becomes_it(
    academy: People, ask: TurnRunner
) -> None:
    first = ask(
        "Send an email to James Taylor about the staff meeting on Friday",
        model=OfflineChatModel(),
    )
    ask("It moves to room 4 at 3pm.", model=OfflineChatModel(), conversation=first.conversation)

    assert first.reply is not None and first.reply.content == "What should the e-mail say?"
    action = PendingAction.objects.get(conversation=first.conversation)
    assert action.tool == "send_email"
    assert action.arguments == {
        "to": ["James Taylor"],
        "subject": "The staff meeting on Friday",
        "body": "It moves to room 4 at 3pm.",
    }


def test_a_korean_request_in_reported_speech_becomes_the_direct_message(
    academy: People, ask: TurnRunner
) -> None:
    turn = ask("A반 학부모님들께 내일 휴원한다고 문자 보내줘", model=OfflineChatModel())

    action = PendingAction.objects.get(conversation=turn.conversation)
    assert action.arguments == {"to": ["Parents - Class A"], "body": "내일 휴원합니다"}


def test_a_contact_of_another_tenant_is_never_matched(
    academy: People, ask: TurnRunner, tenant_b: Tenant
) -> None:
    with tenant_context(tenant_b):
        Contact.objects.create(name="Zoe Carter", phone="+12025550140")

    turn = ask("text Zoe Carter that the class moved", model=OfflineChatModel())

    assert turn.reply is not None and "I don't know anyone called “Zoe Carter”" in (
        turn.reply.content
    )
    assert not PendingAction.objects.filter(conversation=turn.conversation).exists()


def test_the_readings_of_an_ambiguous_name_are_offered_as_choices_and_one_answers_it(
    academy: People, ask: TurnRunner
) -> None:
    Contact.objects.create(name="Emma Park", phone="+12025550120")

    first = ask("could you text Emma that the library shuts at noon", model=OfflineChatModel())
    assert first.reply is not None
    offered = first.reply.choices
    second = ask(offered[1], model=OfflineChatModel(), conversation=first.conversation)

    assert offered == ["Emma Park", "Emma Wilson"]
    assert done_payload(first.reply)["choices"] == offered
    action = PendingAction.objects.get(conversation=first.conversation)
    assert second.events.of("pending") == [action]
    assert action.arguments["to"] == ["Emma Wilson"]
    assert second.reply is None or second.reply.choices == []


def test_a_reply_that_asks_nothing_offers_no_choices(academy: People, ask: TurnRunner) -> None:
    turn = ask("Send an email to James Taylor about the trip", model=OfflineChatModel())

    assert turn.reply is not None and turn.reply.choices == []
