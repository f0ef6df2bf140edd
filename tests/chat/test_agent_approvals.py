"""The agent proposes, a person decides, a worker executes — exactly once."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connections
from django_tenants.utils import tenant_context
from langchain_core.messages import AIMessage
from langgraph.checkpoint.postgres import PostgresSaver

from actions.models import Contact, OutboundMessage
from chat.agent.runner import CollectingEvents
from chat.models import ActionEvent, Message, PendingAction
from chat.pending_actions import (
    ActionInvalidArguments,
    ActionNotFound,
    ActionPermissionDenied,
    ActionStateError,
    pending_action_confirm,
    pending_action_decide,
    pending_action_execute,
)
from chat.services.turns import turn_resume, turn_run
from core.schema import use_public_schema
from tenants.models import Tenant
from tenants.roles import APPROVER
from tests.chat.conftest import People, TurnRunner
from tests.chat.scripted import ScriptedChatModel, tool_call
from tests.chat.tampering import as_superuser_with_triggers_off
from tests.tenants.factories import make_user

SMS = {"to": ["Parents"], "body": "School closes at 1pm today"}


def _sms_model(*, confirm: str = "Sent.") -> ScriptedChatModel:
    return ScriptedChatModel(replies=[tool_call("send_sms", **SMS), AIMessage(confirm)])


@pytest.fixture
def proposed(ask: TurnRunner, parents_group: object) -> tuple[PendingAction, ScriptedChatModel]:
    model = _sms_model()
    turn = ask("Text the parents that school closes at 1pm", model=model)
    assert turn.reply is None, "the turn pauses for approval"
    return PendingAction.objects.get(conversation=turn.conversation), model


def test_an_sms_request_creates_a_pending_action_and_sends_nothing(
    proposed: tuple[PendingAction, ScriptedChatModel],
) -> None:
    action, _ = proposed

    assert action.status == PendingAction.Status.PENDING
    assert action.tool == "send_sms"
    assert "2" in action.description and "School closes at 1pm today" in action.description
    assert OutboundMessage.objects.count() == 0


def test_approving_sends_exactly_one_message_per_recipient_and_confirms(
    proposed: tuple[PendingAction, ScriptedChatModel], people_a: People
) -> None:
    action, model = proposed
    pending_action_decide(action_id=action.id, user=people_a.approver, decision="approve")
    events = CollectingEvents()

    reply = turn_resume(action=PendingAction.objects.get(pk=action.id), events=events, model=model)

    assert reply is not None and reply.content == "Sent."
    assert OutboundMessage.objects.count() == 2
    assert set(OutboundMessage.objects.values_list("body", flat=True)) == {SMS["body"]}
    assert PendingAction.objects.get(pk=action.id).status == PendingAction.Status.EXECUTED


def test_rejecting_sends_nothing_and_replies_with_the_rejection_and_its_note(
    proposed: tuple[PendingAction, ScriptedChatModel], people_a: People
) -> None:
    action, model = proposed
    pending_action_decide(
        action_id=action.id, user=people_a.approver, decision="reject", note="not today"
    )

    reply = turn_resume(
        action=PendingAction.objects.get(pk=action.id), events=CollectingEvents(), model=model
    )

    assert reply is not None
    assert reply.content == (
        "The request to send an SMS to Parents was rejected by april: “not today”. "
        "Nothing was sent or changed."
    )
    assert OutboundMessage.objects.count() == 0
    assert len(model.calls) == 1, "the model is not asked again after a rejection"


def test_an_edit_confirmed_by_the_requester_sends_the_edited_text_and_the_audit_log_shows_it(
    proposed: tuple[PendingAction, ScriptedChatModel], people_a: People
) -> None:
    action, model = proposed
    edited = {"to": ["Parents"], "body": "School closes at 2pm today"}
    pending_action_decide(
        action_id=action.id, user=people_a.approver, decision="approve", arguments=edited
    )
    pending_action_confirm(action_id=action.id, user=people_a.staff, decision="confirm")
    turn_resume(
        action=PendingAction.objects.get(pk=action.id), events=CollectingEvents(), model=model
    )

    assert set(OutboundMessage.objects.values_list("body", flat=True)) == {edited["body"]}
    log = list(
        ActionEvent.objects.filter(action_id=action.id).values_list(
            "kind", "actor__username", "data"
        )
    )
    assert [(kind, actor) for kind, actor, _ in log] == [
        ("proposed", "sam"),
        ("edited", "april"),
        ("confirmed", "sam"),
        ("executed", None),
    ]
    assert log[0][2]["arguments"]["body"] == SMS["body"]
    assert log[1][2]["after"]["body"] == edited["body"]


def test_approving_with_empty_arguments_approves_the_proposal_unedited(
    proposed: tuple[PendingAction, ScriptedChatModel], people_a: People
) -> None:
    action, _ = proposed

    decided = pending_action_decide(
        action_id=action.id, user=people_a.approver, decision="approve", arguments={}
    )

    assert decided.status == PendingAction.Status.APPROVED
    assert decided.arguments == action.arguments
    assert not ActionEvent.objects.filter(action_id=action.id, kind="edited").exists()


def test_approve_after_reject_is_a_clear_state_error(
    proposed: tuple[PendingAction, ScriptedChatModel], people_a: People
) -> None:
    action, _ = proposed
    pending_action_decide(action_id=action.id, user=people_a.approver, decision="reject")

    with pytest.raises(ActionStateError, match="already rejected"):
        pending_action_decide(action_id=action.id, user=people_a.approver, decision="approve")


def test_the_requester_cannot_approve_their_own_action(
    proposed: tuple[PendingAction, ScriptedChatModel], people_a: People
) -> None:
    action, _ = proposed

    with pytest.raises(ActionPermissionDenied):
        pending_action_decide(action_id=action.id, user=people_a.staff, decision="approve")


def test_resuming_again_after_execution_sends_nothing_more(
    proposed: tuple[PendingAction, ScriptedChatModel], people_a: People
) -> None:
    action, model = proposed
    pending_action_decide(action_id=action.id, user=people_a.approver, decision="approve")
    first = turn_resume(
        action=PendingAction.objects.get(pk=action.id), events=CollectingEvents(), model=model
    )

    again = turn_resume(
        action=PendingAction.objects.get(pk=action.id), events=CollectingEvents(), model=model
    )
    outcome = pending_action_execute(action_id=action.id)

    assert again == first
    assert outcome.status == "executed"
    assert OutboundMessage.objects.count() == 2


def test_an_action_found_executing_outside_a_resumed_turn_is_only_reported(
    proposed: tuple[PendingAction, ScriptedChatModel],
) -> None:
    action, _ = proposed
    PendingAction.objects.filter(pk=action.id).update(status=PendingAction.Status.EXECUTING)

    outcome = pending_action_execute(action_id=action.id)

    assert outcome.status == "executing"
    assert "interrupted" in outcome.summary
    assert OutboundMessage.objects.count() == 0


def test_a_resumed_turn_finishes_an_action_its_dead_worker_left_executing_before_any_message(
    proposed: tuple[PendingAction, ScriptedChatModel], people_a: People
) -> None:
    action, model = proposed
    pending_action_decide(action_id=action.id, user=people_a.approver, decision="approve")
    PendingAction.objects.filter(pk=action.id).update(status=PendingAction.Status.EXECUTING)

    reply = turn_resume(
        action=PendingAction.objects.get(pk=action.id), events=CollectingEvents(), model=model
    )

    assert reply is not None and reply.content == "Sent."
    assert PendingAction.objects.get(pk=action.id).status == PendingAction.Status.EXECUTED
    assert OutboundMessage.objects.count() == 2


def test_a_resumed_turn_finishes_an_interrupted_action_without_a_second_message(
    proposed: tuple[PendingAction, ScriptedChatModel], people_a: People
) -> None:
    action, model = proposed
    pending_action_decide(action_id=action.id, user=people_a.approver, decision="approve")
    pending_action_execute(action_id=action.id)  # the dead worker made the messages …
    PendingAction.objects.filter(pk=action.id).update(status=PendingAction.Status.EXECUTING)
    with as_superuser_with_triggers_off():  # the audit trail is append-only
        ActionEvent.objects.filter(action_id=action.id, kind=ActionEvent.Kind.EXECUTED).delete()
    before = list(OutboundMessage.objects.order_by("pk").values_list("uuid", flat=True))

    reply = turn_resume(  # … and died before recording the outcome
        action=PendingAction.objects.get(pk=action.id), events=CollectingEvents(), model=model
    )

    assert reply is not None and reply.content == "Sent."
    assert PendingAction.objects.get(pk=action.id).status == PendingAction.Status.EXECUTED
    assert list(OutboundMessage.objects.order_by("pk").values_list("uuid", flat=True)) == before
    assert ActionEvent.objects.filter(action_id=action.id, kind="executed").count() == 1


class _WorkerKilled(BaseException):
    """Stands for SIGKILL: nothing in the turn catches it."""


def test_a_resume_killed_after_the_approval_step_was_saved_but_not_its_checkpoint_still_replies(
    proposed: tuple[PendingAction, ScriptedChatModel],
    people_a: People,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The approval node's writes are saved as soon as it ends; the checkpoint after it comes
    # next. A worker killed in between leaves the node with a result and out of
    # ``state.next``: the rescuing run must continue to the model, not store the tool call's
    # empty text as the reply (seen as an empty ``done`` in tests/faults).
    action, model = proposed
    model.replies.append(AIMessage("Sent."))  # the dead run may have asked the model already
    pending_action_decide(action_id=action.id, user=people_a.approver, decision="approve")
    paused = PostgresSaver.put

    def killed_before_the_next_checkpoint(self: PostgresSaver, *args: Any, **kw: Any) -> Any:
        raise _WorkerKilled()

    monkeypatch.setattr(PostgresSaver, "put", killed_before_the_next_checkpoint)
    with pytest.raises(_WorkerKilled):
        turn_resume(
            action=PendingAction.objects.get(pk=action.id), events=CollectingEvents(), model=model
        )
    monkeypatch.setattr(PostgresSaver, "put", paused)
    sent = list(OutboundMessage.objects.values_list("uuid", flat=True))

    reply = turn_resume(
        action=PendingAction.objects.get(pk=action.id), events=CollectingEvents(), model=model
    )

    assert reply is not None and reply.content == "Sent."
    assert len(sent) == 2, "the dead run made the messages"
    assert list(OutboundMessage.objects.values_list("uuid", flat=True)) == sent
    assert ActionEvent.objects.filter(action_id=action.id, kind="executed").count() == 1


def test_a_redelivered_first_turn_after_the_resume_replied_adds_no_second_confirmation(
    proposed: tuple[PendingAction, ScriptedChatModel], people_a: People
) -> None:
    action, model = proposed
    pending_action_decide(action_id=action.id, user=people_a.approver, decision="approve")
    turn_resume(
        action=PendingAction.objects.get(pk=action.id), events=CollectingEvents(), model=model
    )
    asked = Message.objects.get(conversation=action.conversation, role=Message.Role.USER)

    events = CollectingEvents()
    again = turn_run(conversation=action.conversation, message=asked, events=events, model=model)

    assert again is None
    replies = Message.objects.filter(conversation=action.conversation, role="assistant")
    assert [m.content for m in replies] == ["Sent."]
    assert OutboundMessage.objects.count() == 2


def test_edited_arguments_are_validated_like_new_ones(
    proposed: tuple[PendingAction, ScriptedChatModel], people_a: People
) -> None:
    action, _ = proposed

    with pytest.raises(ActionInvalidArguments, match="Nobody"):
        pending_action_decide(
            action_id=action.id,
            user=people_a.approver,
            decision="approve",
            arguments={"to": ["Nobody"], "body": "hi"},
        )
    assert PendingAction.objects.get(pk=action.id).status == PendingAction.Status.PENDING


@pytest.mark.django_db(transaction=True)
def test_fifty_concurrent_approvals_execute_the_action_once(tenant_a: Tenant) -> None:
    with tenant_context(tenant_a):
        from chat.models import Conversation

        staff = make_user(tenant_a, "sam2")
        approvers = [make_user(tenant_a, f"ap{i}", role=APPROVER) for i in range(50)]
        Contact.objects.create(name="Solo", phone="+12025550109")
        conversation = Conversation.objects.create(user=staff)
        from chat.pending_actions import pending_action_propose

        action = pending_action_propose(
            conversation=conversation,
            tool_call_id="c1",
            tool="send_sms",
            arguments={"to": ["Solo"], "body": "hello"},
            requested_by_id=staff.pk,
        )
    outcomes: list[str] = []
    barrier = threading.Barrier(50)

    def approve_and_execute(approver_index: int) -> None:
        with tenant_context(tenant_a):
            barrier.wait()
            try:
                pending_action_decide(
                    action_id=action.id, user=approvers[approver_index], decision="approve"
                )
                outcomes.append("decided")
            except ActionStateError:
                outcomes.append("refused")
            outcomes.append(pending_action_execute(action_id=action.id).status)
        connections.close_all()

    threads = [threading.Thread(target=approve_and_execute, args=(i,)) for i in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    with tenant_context(tenant_a):
        assert outcomes.count("decided") == 1
        assert outcomes.count("refused") == 49
        assert OutboundMessage.objects.count() == 1
        assert ActionEvent.objects.filter(action_id=action.id, kind="executed").count() == 1
    use_public_schema()


def test_an_approver_of_tenant_b_cannot_see_or_decide_an_action_of_tenant_a(
    proposed: tuple[PendingAction, ScriptedChatModel], tenant_b: Tenant
) -> None:
    action, _ = proposed
    outsider = make_user(tenant_b, "bea", role=APPROVER)

    with tenant_context(tenant_b), pytest.raises(ActionNotFound):
        pending_action_decide(action_id=action.id, user=outsider, decision="approve")


def test_edited_arguments_cannot_target_a_contact_of_another_tenant(
    proposed: tuple[PendingAction, ScriptedChatModel], people_a: People, tenant_b: Tenant
) -> None:
    action, _ = proposed
    with tenant_context(tenant_b):
        Contact.objects.create(name="Beta Only", phone="+12025550188")

    with pytest.raises(ActionInvalidArguments, match="Beta Only"):
        pending_action_decide(
            action_id=action.id,
            user=people_a.approver,
            decision="approve",
            arguments={"to": ["Beta Only"], "body": "hi"},
        )
