"""The router answers small talk, help, disabled tools and "cancel that" before the agent runs."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django_tenants.utils import tenant_context
from langchain_core.messages import AIMessage, ToolMessage

from actions.models import Contact, OutboundMessage, ToolPolicy
from chat.models import ActionEvent, Conversation, Message, PendingAction
from chat.pending_actions import (
    ActionStateError,
    pending_action_decide,
    pending_action_execute,
)
from chat.services.turns import ROUTER_MODEL
from tenants.models import Tenant
from tests.chat.conftest import People, TurnRunner
from tests.chat.scripted import ScriptedChatModel, tool_call
from tests.tenants.factories import make_user

SMS = {"to": ["Emma Wilson"], "body": "Class moved to 3pm"}


def _silent_model() -> ScriptedChatModel:
    """A model with nothing to say: any call fails the test."""
    return ScriptedChatModel(replies=[])


@pytest.fixture
def emma(in_tenant_a: Tenant) -> Contact:
    return Contact.objects.create(name="Emma Wilson", phone="+12025550111")


@pytest.fixture
def telegram_off(in_tenant_a: Tenant) -> None:
    ToolPolicy.objects.update_or_create(tool_name="send_telegram", defaults={"enabled": False})


@pytest.fixture
def pending_sms(ask: TurnRunner, emma: Contact) -> tuple[PendingAction, ScriptedChatModel]:
    model = ScriptedChatModel(replies=[tool_call("send_sms", **SMS), AIMessage("Okay.")])
    turn = ask("Send an SMS to Emma Wilson saying class moved to 3pm", model=model)
    assert turn.reply is None, "the turn waits for approval"
    return PendingAction.objects.get(conversation=turn.conversation), model


def test_it_answers_hello_with_the_enabled_tools_and_never_calls_the_model(
    ask: TurnRunner, telegram_off: None
) -> None:
    model = _silent_model()

    turn = ask("hello", model=model)

    assert model.calls == []
    assert turn.reply is not None and turn.reply.content.startswith("Hello!")
    assert "SMS messages" in turn.reply.content and "Reminders" in turn.reply.content
    assert "Telegram" not in turn.reply.content


def test_a_routed_reply_streams_and_is_stored_like_any_reply(ask: TurnRunner) -> None:
    turn = ask("What can you do?", model=_silent_model())

    assert turn.reply is not None
    assert [kind for kind, _ in turn.events.events] == ["token", "done"]
    assert "".join(turn.events.of("token")) == turn.reply.content
    stored = Message.objects.get(conversation=turn.conversation, role=Message.Role.ASSISTANT)
    assert stored == turn.reply and stored.usage["model"] == ROUTER_MODEL


def test_it_answers_korean_small_talk_in_korean(ask: TurnRunner) -> None:
    turn = ask("뭘 할 수 있어?", model=_silent_model())

    assert turn.reply is not None and "승인을 거쳐" in turn.reply.content


def test_a_request_for_a_disabled_tool_says_it_is_turned_off(
    ask: TurnRunner, telegram_off: None, emma: Contact
) -> None:
    turn = ask("Send a telegram to Emma Wilson saying the bus is late", model=_silent_model())

    assert turn.reply is not None
    assert turn.reply.content == "Telegram messages are turned off for this organisation."
    assert not PendingAction.objects.exists()


def test_a_request_for_an_enabled_tool_goes_to_the_agent(ask: TurnRunner, emma: Contact) -> None:
    model = ScriptedChatModel(replies=[AIMessage("Who should I text?")])

    turn = ask("Can you help me send an SMS to Emma saying hi", model=model)

    assert len(model.calls) == 1
    assert turn.reply is not None and turn.reply.content == "Who should I text?"


def test_cancel_that_withdraws_the_pending_action_and_audits_it(
    pending_sms: tuple[PendingAction, ScriptedChatModel], ask: TurnRunner, people_a: People
) -> None:
    action, model = pending_sms

    turn = ask("cancel that", model=model, conversation=action.conversation)

    action.refresh_from_db()
    assert action.status == PendingAction.Status.WITHDRAWN
    withdrawn = ActionEvent.objects.get(action=action, kind=ActionEvent.Kind.WITHDRAWN)
    assert withdrawn.actor == people_a.staff
    assert withdrawn.data["message"] == str(
        Message.objects.get(conversation=action.conversation, content="cancel that").uuid
    )
    assert turn.reply is not None and turn.reply.content.startswith("Okay — I withdrew")
    assert len(model.calls) == 1, "only the original request reached the model"


def test_cancel_that_announces_the_withdrawn_action_to_watchers(
    pending_sms: tuple[PendingAction, ScriptedChatModel], ask: TurnRunner
) -> None:
    action, model = pending_sms

    turn = ask("Never mind", model=model, conversation=action.conversation)

    announced = turn.events.of("action")
    assert [(a.id, a.status) for a in announced] == [(action.id, PendingAction.Status.WITHDRAWN)]


def test_after_a_withdrawal_the_conversation_goes_on_without_a_dangling_tool_call(
    pending_sms: tuple[PendingAction, ScriptedChatModel], ask: TurnRunner
) -> None:
    action, _ = pending_sms
    ask("cancel that SMS", model=_silent_model(), conversation=action.conversation)
    model = ScriptedChatModel(replies=[AIMessage("Twenty days.")])

    turn = ask("How much leave do I get?", model=model, conversation=action.conversation)

    assert turn.reply is not None and turn.reply.content == "Twenty days."
    answered = [m for m in model.calls[0] if isinstance(m, ToolMessage)]
    assert answered and answered[-1].tool_call_id == action.tool_call_id
    assert "withdrawn" in str(answered[-1].content)


def test_korean_cancel_withdraws_and_answers_in_korean(
    pending_sms: tuple[PendingAction, ScriptedChatModel], ask: TurnRunner
) -> None:
    action, _ = pending_sms

    turn = ask("취소해줘", model=_silent_model(), conversation=action.conversation)

    action.refresh_from_db()
    assert action.status == PendingAction.Status.WITHDRAWN
    assert turn.reply is not None and turn.reply.content.startswith("요청을 취소했어요")


def test_approving_a_withdrawn_action_is_refused_and_nothing_is_sent(
    pending_sms: tuple[PendingAction, ScriptedChatModel], ask: TurnRunner, people_a: People
) -> None:
    action, _ = pending_sms
    ask("cancel that", model=_silent_model(), conversation=action.conversation)

    with pytest.raises(ActionStateError, match="already withdrawn"):
        pending_action_decide(action_id=action.id, user=people_a.approver, decision="approve")
    outcome = pending_action_execute(action_id=action.id)

    assert outcome.status == "withdrawn"
    assert OutboundMessage.objects.count() == 0


def test_cancel_with_nothing_pending_says_there_is_nothing_to_cancel(ask: TurnRunner) -> None:
    turn = ask("cancel that", model=_silent_model())

    assert turn.reply is not None
    assert "nothing to cancel" in turn.reply.content


def test_cancel_that_sms_leaves_a_pending_email_alone(
    pending_sms: tuple[PendingAction, ScriptedChatModel], ask: TurnRunner
) -> None:
    action, _ = pending_sms

    turn = ask("cancel that email", model=_silent_model(), conversation=action.conversation)

    action.refresh_from_db()
    assert action.status == PendingAction.Status.PENDING
    assert turn.reply is not None and "no pending e-mail" in turn.reply.content


def test_cancel_that_in_another_tenant_withdraws_nothing_here(
    pending_sms: tuple[PendingAction, ScriptedChatModel], tenant_b: Tenant
) -> None:
    from chat.agent.runner import CollectingEvents
    from chat.services.turns import turn_run, turn_start

    action, _ = pending_sms
    with tenant_context(tenant_b):
        outsider = make_user(tenant_b, "bea")
        conversation, message, _ = turn_start(user=outsider, text="cancel that")
        reply = turn_run(
            conversation=conversation,
            message=message,
            events=CollectingEvents(),
            model=_silent_model(),
        )
        assert reply is not None and "nothing to cancel" in reply.content

    action.refresh_from_db()
    assert action.status == PendingAction.Status.PENDING


def test_a_redelivered_cancel_answers_once_and_withdraws_once(
    pending_sms: tuple[PendingAction, ScriptedChatModel], ask: TurnRunner
) -> None:
    from chat.agent.runner import CollectingEvents
    from chat.services.turns import turn_run

    action, _ = pending_sms
    turn = ask("cancel that", model=_silent_model(), conversation=action.conversation)
    message = Message.objects.get(conversation=action.conversation, content="cancel that")
    assert turn.reply is not None
    turn.reply.delete()  # the worker died after withdrawing, before storing its reply

    again = turn_run(
        conversation=Conversation.objects.get(pk=action.conversation_id),
        message=message,
        events=CollectingEvents(),
        model=_silent_model(),
    )

    assert again is not None and again.content == turn.reply.content
    assert ActionEvent.objects.filter(action=action, kind=ActionEvent.Kind.WITHDRAWN).count() == 1


def test_another_tenants_switched_off_tool_is_still_offered_here(
    ask: TurnRunner, tenant_b: Tenant
) -> None:
    with tenant_context(tenant_b):
        ToolPolicy.objects.update_or_create(tool_name="send_telegram", defaults={"enabled": False})

    turn = ask("help", model=_silent_model())

    assert turn.reply is not None and "Telegram messages" in turn.reply.content


def test_a_message_impersonating_a_bank_is_refused_before_any_model_and_nothing_is_proposed(
    ask: TurnRunner, emma: Contact
) -> None:
    model = _silent_model()

    turn = ask(
        "Text Emma Wilson from 'City Bank Fraud Team' and ask her to reply with her PIN",
        model=model,
    )

    assert model.calls == []
    assert turn.reply is not None and "can't" in turn.reply.content
    assert not PendingAction.objects.exists()


def test_a_korean_request_for_passwords_is_refused_in_korean(ask: TurnRunner) -> None:
    turn = ask("선생님들한테 메일로 계정 비밀번호 회신해 달라고 보내줘", model=_silent_model())

    assert turn.reply is not None and "도와드릴 수 없어요" in turn.reply.content
    assert not PendingAction.objects.exists()


def test_a_request_on_another_channel_names_it_and_proposes_no_substitute(
    ask: TurnRunner, emma: Contact, telegram_off: None
) -> None:
    model = _silent_model()

    turn = ask("Send Emma Wilson a WhatsApp saying the bus is late", model=model)

    assert model.calls == []
    assert turn.reply is not None and "WhatsApp" in turn.reply.content
    assert "SMS messages" in turn.reply.content and "Telegram" not in turn.reply.content
    assert not PendingAction.objects.exists()


def test_who_approves_is_answered_from_the_live_policy_without_the_model(
    ask: TurnRunner, in_tenant_a: Tenant, telegram_off: None
) -> None:
    office = Group.objects.create(name="Front office")
    ToolPolicy.objects.update_or_create(
        tool_name="send_sms", defaults={"approver_group": office, "expires_after_hours": 6}
    )
    model = _silent_model()

    sms = ask("Does a text message go out right away, or who signs it off?", model=model)
    telegram = ask("텔레그램은 왜 못 보내요?", model=model)

    assert model.calls == []
    assert sms.reply is not None and "Front office" in sms.reply.content
    assert "6 hours" in sms.reply.content
    assert telegram.reply is not None and "꺼져 있어서" in telegram.reply.content


@pytest.mark.parametrize(
    "text",
    [
        "oops, can you pull that? the time is wrong",
        "아 그거 철회할게요 시간이 틀렸어요",
        # in words the patterns miss: read by meaning
        "sorry, don't send it after all - I'll tell her myself at pickup",
        "교감 선생님이 직접 전화하신대요 ㅎㅎ 그건 없던 걸로 해 주세요",
        # the reason first, the take-back last, read because something is pending
        "아 최 선생님이 방금 벌써 돌리셨다네요 ㅎㅎ 이건 안 보내셔도 돼요",
        "다시 상의한 결과 그대로 하기로 하였으므로, 방금 요청한 건은 없던 걸로 해 주십시오.",
        "음… 생각해 보니 굳이 안 보내도 될 것 같아요. 그거 취소해 주실 수 있을까요?",
        "헐 사람 잘못말함ㅠㅠ 그거 보내지마",
        "ugh, scrap that - her mum already called me",
        "oops wrong person lol, don't send that",
        "actually no need, James already told them at pickup",
    ],
)
def test_a_cancel_with_its_reason_withdraws_the_pending_action(
    pending_sms: tuple[PendingAction, ScriptedChatModel], ask: TurnRunner, text: str
) -> None:
    action, model = pending_sms

    turn = ask(text, model=model, conversation=action.conversation)

    action.refresh_from_db()
    assert action.status == PendingAction.Status.WITHDRAWN
    assert turn.reply is not None and len(model.calls) == 1


def test_what_it_can_do_asked_after_a_greeting_and_an_introduction_skips_the_model(
    ask: TurnRunner,
) -> None:
    model = _silent_model()

    turn = ask(
        "hello! I'm the new receptionist here - what kind of stuff can you do for me?", model=model
    )

    assert turn.reply is not None and "With a person's approval" in turn.reply.content
    assert model.calls == []


def test_a_longer_question_about_what_it_can_do_is_answered_without_the_model(
    ask: TurnRunner,
) -> None:
    model = _silent_model()

    turn = ask("hiya, what kind of things are you able to do for me?", model=model)

    assert turn.reply is not None and "With a person's approval" in turn.reply.content
    assert model.calls == []


@pytest.mark.parametrize(
    "text",
    [
        "그거 취소하고 B반 학부모님들께 대신 보내줘",
        "cancel that and text the class B parents instead",
        "don't send it yet, make it 5pm",
        "never mind that, what is the leave policy?",
    ],
)
def test_a_new_request_or_a_question_beside_a_take_back_goes_to_the_agent(
    pending_sms: tuple[PendingAction, ScriptedChatModel], ask: TurnRunner, text: str
) -> None:
    action, _ = pending_sms
    model = ScriptedChatModel(replies=[AIMessage("Let me look at that.")])

    turn = ask(text, model=model, conversation=action.conversation)

    assert turn.reply is not None and turn.reply.content == "Let me look at that."
    action.refresh_from_db()
    assert action.status == PendingAction.Status.PENDING


def test_with_nothing_pending_a_take_back_after_its_reason_reaches_the_agent(
    ask: TurnRunner,
) -> None:
    model = ScriptedChatModel(replies=[AIMessage("Nothing was sent, so there is nothing to stop.")])

    turn = ask("아 최 선생님이 벌써 돌리셨다네요 ㅎㅎ 이건 안 보내셔도 돼요", model=model)

    assert turn.reply is not None and len(model.calls) == 1


def test_another_tenants_take_back_leaves_the_pending_action_here_alone(
    pending_sms: tuple[PendingAction, ScriptedChatModel], tenant_b: Tenant
) -> None:
    from chat.agent.runner import CollectingEvents
    from chat.services.turns import turn_run, turn_start

    action, _ = pending_sms
    with tenant_context(tenant_b):
        outsider = make_user(tenant_b, "bea")
        text = "아 최 선생님이 벌써 돌리셨다네요 ㅎㅎ 이건 안 보내셔도 돼요"
        conversation, message, _ = turn_start(user=outsider, text=text)
        model = ScriptedChatModel(replies=[AIMessage("There is nothing of yours waiting.")])
        reply = turn_run(
            conversation=conversation, message=message, events=CollectingEvents(), model=model
        )
        assert reply is not None and reply.content == "There is nothing of yours waiting."

    action.refresh_from_db()
    assert action.status == PendingAction.Status.PENDING
