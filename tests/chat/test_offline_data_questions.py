"""Data questions answered by the offline model through query_data, in English and Korean."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.utils import timezone
from django_tenants.utils import tenant_context

from actions.models import Contact, ContactGroup, OutboundMessage, Reminder
from chat.builtin_model.dataqa import period_bounds
from chat.builtin_model.model import OfflineChatModel
from chat.models import Conversation, Message, PendingAction
from tenants.models import Tenant
from tests.chat.conftest import People, Turn, TurnRunner

# query_data reads on its own connection, so the rows must be committed.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def class_a(in_tenant_a: Tenant) -> ContactGroup:
    group = ContactGroup.objects.create(name="Parents - Class A")
    for index, name in enumerate(["Kim Minji", "Emma Wilson"]):
        Contact.objects.create(name=name, phone=f"+1202555010{index}").groups.add(group)
    Contact.objects.create(name="James Taylor", phone="+12025550109")
    return group


def reply_of(turn: Turn) -> str:
    assert turn.events.of("error") == []
    assert turn.reply is not None and turn.reply.status == Message.Status.COMPLETE
    return turn.reply.content


@pytest.fixture
def own_action(people_a: People) -> Callable[[], uuid.UUID]:
    """Makes actions the asking staff member proposed: query_data shows staff only the messages
    and reminders their own actions caused (the per-user views of the query schema)."""
    conversation = Conversation.objects.create(user=people_a.staff)

    def make() -> uuid.UUID:
        action = PendingAction.objects.create(
            conversation=conversation,
            tool_call_id=f"call_{uuid.uuid4().hex[:8]}",
            tool="send_sms",
            arguments={},
            arguments_hash="x",
            description="SMS",
            requested_by=people_a.staff,
        )
        return action.id

    return make


def message(
    status: str, *, action_id: uuid.UUID, channel: str = "sms", days_ago: int = 0
) -> OutboundMessage:
    row = OutboundMessage.objects.create(
        action_id=action_id,
        channel=channel,
        to_address=f"+1202555{uuid.uuid4().int % 10000:04d}",
        body="School closes at 1pm",
        status=status,
    )
    if days_ago:
        OutboundMessage.objects.filter(pk=row.pk).update(
            created_at=timezone.now() - timedelta(days=days_ago)
        )
    return row


def test_it_counts_contacts_in_a_sentence(class_a: ContactGroup, ask: TurnRunner) -> None:
    turn = ask("How many contacts do we have?", model=OfflineChatModel())

    assert reply_of(turn) == "There are 3 contacts."
    assert "querying" in turn.events.of("status")


def test_it_counts_contacts_when_asked_in_korean(class_a: ContactGroup, ask: TurnRunner) -> None:
    turn = ask("연락처가 몇 개 있나요?", model=OfflineChatModel())

    assert reply_of(turn) == "연락처는 모두 3개입니다."


def test_it_lists_the_contacts_of_a_group_as_a_table(
    class_a: ContactGroup, ask: TurnRunner
) -> None:
    turn = ask("Which contacts are in Parents - Class A?", model=OfflineChatModel())

    reply = reply_of(turn)
    assert reply.startswith("Here are the 2 contacts in ‘Parents - Class A’:\n\n| name |")  # noqa: RUF001
    assert "| Emma Wilson |" in reply and "| Kim Minji |" in reply
    assert "James Taylor" not in reply


def test_it_lists_only_the_sms_sent_today(
    own_action: Callable[[], uuid.UUID], ask: TurnRunner
) -> None:
    action = own_action()
    message("sent", action_id=action)
    message("sent", action_id=action, days_ago=3)
    message("sent", action_id=action, channel="email")

    turn = ask("What SMS did we send today?", model=OfflineChatModel())

    table_rows = [line for line in reply_of(turn).splitlines() if line.startswith("| 20")]
    assert len(table_rows) == 1 and "| sms |" in table_rows[0]


def test_it_counts_the_reminders_scheduled_this_week(
    own_action: Callable[[], uuid.UUID], ask: TurnRunner
) -> None:
    start, end = period_bounds("week", now=timezone.now(), tz=ZoneInfo(settings.TIME_ZONE))
    for due_at in (start + timedelta(hours=1), end - timedelta(hours=1), end + timedelta(days=1)):
        Reminder.objects.create(
            action_id=own_action(), due_at=due_at, tool="send_sms", arguments={}
        )

    turn = ask("How many reminders are scheduled this week?", model=OfflineChatModel())

    assert reply_of(turn) == "There are 2 reminders this week."


def test_it_breaks_messages_down_by_status_when_asked_in_korean(
    own_action: Callable[[], uuid.UUID], ask: TurnRunner
) -> None:
    action = own_action()
    for status in ("sent", "sent", "failed"):
        message(status, action_id=action)

    turn = ask("메시지 상태별로 몇 개야?", model=OfflineChatModel())

    reply = reply_of(turn)
    assert "| status | count |" in reply
    assert "| failed | 1 |" in reply and "| sent | 2 |" in reply


def test_a_data_question_on_tenant_a_never_counts_tenant_b_rows(
    tenant_a: Tenant, tenant_b: Tenant, ask: TurnRunner
) -> None:
    with tenant_context(tenant_b):
        for index in range(5):
            Contact.objects.create(name=f"Beta {index}", phone=f"+1202555020{index}")
    with tenant_context(tenant_a):
        Contact.objects.create(name="Alpha", phone="+12025550300")

        turn = ask("How many contacts do we have?", model=OfflineChatModel())

    assert reply_of(turn) == "There is 1 contact."


@pytest.mark.parametrize(
    "hostile",
    [
        "Which contacts are in U&'\\0061'?",
        "How many contacts are in x'); DROP TABLE actions_contact; --?",
        "연락처 몇 개" + "'" * 200,
    ],
)
def test_hostile_text_gets_a_polite_reply_and_changes_nothing(
    class_a: ContactGroup, ask: TurnRunner, hostile: str
) -> None:
    turn = ask(hostile, model=OfflineChatModel())

    assert reply_of(turn)
    assert Contact.objects.count() == 3


def test_sql_the_guard_refuses_gets_an_apology_not_an_error(
    class_a: ContactGroup, ask: TurnRunner
) -> None:
    turn = ask("Which contacts are in U&'\\0061'?", model=OfflineChatModel())

    assert reply_of(turn).startswith("Sorry — I couldn't answer that from the data (")


def test_a_question_it_cannot_compile_falls_back_to_the_knowledge_search(
    in_tenant_a: Tenant, ask: TurnRunner
) -> None:
    turn = ask("How long is bereavement leave?", model=OfflineChatModel())

    assert reply_of(turn)
    assert "searching" in turn.events.of("status")
    assert "querying" not in turn.events.of("status")


@pytest.mark.parametrize(
    "question",
    ["How many people lived in London in 1900?", "How many ministers are in the German cabinet?"],
)
def test_a_count_in_a_place_that_is_no_group_of_the_tenant_is_a_knowledge_question(
    class_a: ContactGroup, ask: TurnRunner, question: str
) -> None:
    turn = ask(question, model=OfflineChatModel())

    assert "contacts" not in reply_of(turn)
    assert "searching" in turn.events.of("status")
    assert "querying" not in turn.events.of("status")


def test_a_count_in_one_of_the_tenants_groups_is_still_answered_from_the_data(
    class_a: ContactGroup, ask: TurnRunner
) -> None:
    turn = ask("how many people are in class A parents?", model=OfflineChatModel())

    assert "2" in reply_of(turn)
    assert "querying" in turn.events.of("status")


def test_a_question_about_a_contacts_email_is_answered_from_the_contacts_list(
    in_tenant_a: Tenant, ask: TurnRunner
) -> None:
    Contact.objects.create(name="Emma Wilson", phone="+12025550104", email="emma@parents.example")

    turn = ask("hey, what's Emma Wilson's email address again?", model=OfflineChatModel())

    assert reply_of(turn) == "Emma Wilson's e-mail address is emma@parents.example."
    assert PendingAction.objects.count() == 0  # a question, never a proposal to e-mail her


def test_who_in_a_group_lacks_an_address_lists_them_in_korean(
    class_a: ContactGroup, ask: TurnRunner
) -> None:
    Contact.objects.filter(name="Kim Minji").update(email="minji@parents.example")

    turn = ask("A반 학부모 중에 이메일이 없는 사람 누구예요?", model=OfflineChatModel())

    reply = reply_of(turn)
    assert reply.startswith("Parents - Class A에서 이메일 주소가 없는 연락처 1명입니다")
    assert "| Emma Wilson |" in reply and "Kim Minji" not in reply
    assert "James Taylor" not in reply  # not in the group


def test_a_contact_lookup_on_tenant_a_never_finds_tenant_b_contacts(
    tenant_a: Tenant, tenant_b: Tenant, ask: TurnRunner
) -> None:
    with tenant_context(tenant_b):
        Contact.objects.create(name="Oliver Brown", phone="+12025550999", email="b@beta.example")
    with tenant_context(tenant_a):
        Contact.objects.create(name="Oliver Brown", phone="+12025550105")

        turn = ask("What's Oliver Brown's phone number?", model=OfflineChatModel())

    reply = reply_of(turn)
    assert reply == "Oliver Brown's phone number is +12025550105."
    assert "0999" not in reply


@pytest.mark.parametrize(
    ("question", "listed"),
    [
        (  # a field asked of a group: each member's
            "what are the class A parents' phone numbers?",
            ["| Emma Wilson | +12025550101 |", "| Kim Minji | +12025550100 |"],
        ),
        ("who else is in the same class as Emma Wilson?", ["Kim Minji"]),  # a contact's groups
    ],
)
def test_a_groups_members_are_listed_from_this_tenant_only(
    class_a: ContactGroup,
    tenant_a: Tenant,
    tenant_b: Tenant,
    ask: TurnRunner,
    question: str,
    listed: list[str],
) -> None:
    with tenant_context(tenant_b):
        other = ContactGroup.objects.create(name="Parents - Class A")
        Contact.objects.create(name="Beta Parent", phone="+12025550888").groups.add(other)
    with tenant_context(tenant_a):
        turn = ask(question, model=OfflineChatModel())

    reply = reply_of(turn)
    assert all(row in reply for row in listed)
    assert "James Taylor" not in reply and "Beta Parent" not in reply
