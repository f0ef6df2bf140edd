"""A take-back said in the middle or at the end of a message, in any register, withdraws what
the requester has pending in the conversation; with nothing pending, the same words are an
ordinary message for the agent. Said the way staff put it: the reason first, the withdrawal
last, politely or in a hurry."""

from __future__ import annotations

import pytest
from django_tenants.utils import tenant_context
from langchain_core.messages import AIMessage

from actions.models import Contact
from chat.models import PendingAction
from tenants.models import Tenant
from tests.chat.conftest import TurnRunner
from tests.chat.scripted import ScriptedChatModel, tool_call
from tests.tenants.factories import make_user

SMS = {"to": ["Emma Wilson"], "body": "Class moved to 3pm"}


@pytest.fixture
def pending_sms(ask: TurnRunner, in_tenant_a: Tenant) -> tuple[PendingAction, ScriptedChatModel]:
    Contact.objects.create(name="Emma Wilson", phone="+12025550111")
    model = ScriptedChatModel(replies=[tool_call("send_sms", **SMS), AIMessage("Okay.")])
    turn = ask("Send an SMS to Emma Wilson saying class moved to 3pm", model=model)
    assert turn.reply is None, "the turn waits for approval"
    return PendingAction.objects.get(conversation=turn.conversation), model


@pytest.mark.parametrize(
    "text",
    [
        "아 최 선생님이 방금 벌써 돌리셨다네요 ㅎㅎ 이건 안 보내셔도 돼요",
        "다시 상의한 결과 그대로 하기로 하였으므로, 방금 요청한 건은 없던 걸로 해 주십시오.",
        "음… 생각해 보니 굳이 안 보내도 될 것 같아요. 그거 취소해 주실 수 있을까요?",
        "헐 사람 잘못말함ㅠㅠ 그거 보내지마",
        "ugh, scrap that - her mum already called me",
        "oops wrong person lol, don't send that",
        "actually no need, James already told them at pickup",
    ],
)
def test_a_take_back_after_its_reason_withdraws_the_pending_action(
    pending_sms: tuple[PendingAction, ScriptedChatModel], ask: TurnRunner, text: str
) -> None:
    action, model = pending_sms

    turn = ask(text, model=model, conversation=action.conversation)

    action.refresh_from_db()
    assert action.status == PendingAction.Status.WITHDRAWN
    assert turn.reply is not None and len(model.calls) == 1, "no model was asked"


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


def test_with_nothing_pending_the_same_words_reach_the_agent(ask: TurnRunner) -> None:
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
