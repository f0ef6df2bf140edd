"""Under the tenant setting ``unapprovable_requests = reject``, a turn whose request nobody else
may approve ends at once with the clear words; it never pauses to wait for a decision."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from actions.models import OutboundMessage
from chat.models import PendingAction
from tenants.models import Tenant
from tests.chat.conftest import People, TurnRunner
from tests.chat.scripted import ScriptedChatModel, tool_call

SMS = {"to": ["Parents"], "body": "School closes at 1pm today"}


def test_the_only_approvers_own_request_is_refused_in_the_same_turn_and_nothing_is_sent(
    tenant_a: Tenant, ask: TurnRunner, people_a: People, parents_group: object
) -> None:
    Tenant.objects.filter(pk=tenant_a.pk).update(unapprovable_requests="reject")
    model = ScriptedChatModel(replies=[tool_call("send_sms", **SMS), AIMessage("Sent.")])

    turn = ask("Text the parents that school closes at 1pm", model=model, user=people_a.approver)

    assert turn.reply is not None, "the turn does not pause for a decision nobody can make"
    assert turn.reply.content.startswith(
        "Nobody else may approve this, so it was not sent: ask a tenant admin to add an approver"
    )
    action = PendingAction.objects.get(conversation=turn.conversation)
    assert action.status == PendingAction.Status.REJECTED
    assert OutboundMessage.objects.count() == 0
