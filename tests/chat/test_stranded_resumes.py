"""An approved action always runs once or fails visibly, whatever else its conversation did.

The Redis broker drops a task whose worker is killed between taking it off the queue and
recording it as unacknowledged (seen in tests/faults/test_approval_crash.py: the action stayed
``approved`` for good). Two paths bring it back: a redelivered run of the turn that paused finds
the action decided and queues the resume again, and a beat job queues the resume of every
decided action left without its outcome for ``CHAT_STRANDED_RESUME_SECONDS`` (never claimed,
abandoned while executing, or never told to its conversation).

A conversation may also have moved on between the proposal and the decision (a later question,
a second request, a cancelled turn, a withdrawn sibling): the decision is then carried out from
the action's row and told in fixed words, never by replaying the thread's latest turn
(tests/security/test_stranded_approvals.py holds the original attack).
"""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.utils import timezone
from django_tenants.utils import tenant_context
from langchain_core.messages import AIMessage

from actions.models import Contact, OutboundMessage
from actions.services.policies import tool_policy_enable
from chat.agent.runner import CollectingEvents, cancel_request
from chat.db import conninfo
from chat.models import ActionEvent, Conversation, Message, PendingAction
from chat.pending_actions import (
    ActionStateError,
    pending_action_decide,
    pending_action_execute,
    pending_action_propose,
)
from chat.services.realtime import stranded_resumes_requeue
from chat.services.turns import resume_queue, turn_run
from tenants.models import Tenant
from tenants.roles import APPROVER
from tenants.tasks import fan_out
from tests.chat.conftest import People, TurnRunner
from tests.chat.scripted import ScriptedChatModel, tool_call
from tests.chat.stranded import (
    EMAIL,
    KNOWLEDGE_ANSWER,
    answer_model,
    decide,
    outcome_of,
    reply_to,
    sent_once_and_told_once,
    sms_requested,
)
from tests.chat.tampering import as_superuser_with_triggers_off
from tests.e2e.conftest import stack_env  # noqa: F401 (the fixture)
from tests.e2e.processes import start_worker
from tests.tenants.factories import make_user

SMS = {"to": ["Emma Wilson"], "body": "Class moved to 3pm"}


def _approved(tenant: Tenant, *, seconds_ago: float) -> PendingAction:
    """An action approved ``seconds_ago`` whose resume never ran (the decision service alone
    queues nothing: the use case queues the resume, here lost)."""
    with tenant_context(tenant):
        Contact.objects.get_or_create(name="Emma Wilson", phone="+12025550111")
        requester = make_user(tenant, f"staff-{time.monotonic_ns()}")
        approver = make_user(tenant, f"approver-{time.monotonic_ns()}", role=APPROVER)
        action = pending_action_propose(
            conversation=Conversation.objects.create(user=requester),
            tool_call_id="call_1",
            tool="send_sms",
            arguments=SMS,
            requested_by_id=requester.pk,
        )
        pending_action_decide(action_id=action.id, user=approver, decision="approve")
        PendingAction.objects.filter(pk=action.pk).update(
            decided_at=timezone.now() - timedelta(seconds=seconds_ago)
        )
        return PendingAction.objects.get(pk=action.pk)


def _sms_model() -> ScriptedChatModel:
    return ScriptedChatModel(replies=[tool_call("send_sms", **SMS), AIMessage("Sent.")])


def _approved_in_a_turn(
    ask: TurnRunner, people_a: People, text: str, model: ScriptedChatModel
) -> PendingAction:
    """The action a turn proposed, approved with the decision service alone (no resume)."""
    Contact.objects.create(name="Emma Wilson", phone="+12025550111")
    turn = ask(text, model=model)
    action = PendingAction.objects.get(conversation=turn.conversation)
    pending_action_decide(action_id=action.id, user=people_a.approver, decision="approve")
    return action


def test_an_approval_no_resume_claimed_in_time_has_its_resume_queued_again(
    tenant_a: Tenant, resumes_queued: list[str], settings: Any
) -> None:
    settings.CHAT_STRANDED_RESUME_SECONDS = 120
    stranded = _approved(tenant_a, seconds_ago=121)
    recent = _approved(tenant_a, seconds_ago=5)  # its resume may still be on its way

    with tenant_context(tenant_a):
        assert stranded_resumes_requeue() == 1

    assert resumes_queued == [str(stranded.id)]
    assert str(recent.id) not in resumes_queued


def test_an_approval_a_resume_has_claimed_is_left_alone(
    tenant_a: Tenant, resumes_queued: list[str]
) -> None:
    action = _approved(tenant_a, seconds_ago=3600)
    with tenant_context(tenant_a):
        PendingAction.objects.filter(pk=action.pk).update(status=PendingAction.Status.EXECUTING)

        assert stranded_resumes_requeue() == 0

    assert resumes_queued == []


def test_one_tenants_sweep_never_queues_another_tenants_resumes(
    tenant_a: Tenant, tenant_b: Tenant, resumes_queued: list[str]
) -> None:
    _approved(tenant_a, seconds_ago=3600)

    with tenant_context(tenant_b):
        assert stranded_resumes_requeue() == 0

    assert resumes_queued == []


def test_a_redelivered_turn_that_finds_its_action_approved_queues_the_resume_not_a_new_card(
    ask: TurnRunner, people_a: People, resumes_queued: list[str]
) -> None:
    model = _sms_model()
    action = _approved_in_a_turn(ask, people_a, "Can you text Emma that class moved to 3pm?", model)
    asked = Message.objects.get(conversation=action.conversation, role=Message.Role.USER)

    events = CollectingEvents()
    again = turn_run(conversation=action.conversation, message=asked, events=events, model=model)

    assert again is None
    assert events.of("pending") == [], "the approver is not asked a second time"
    assert resumes_queued == [str(action.id)]
    assert OutboundMessage.objects.count() == 0, "the resume, not this run, executes it"


@pytest.mark.django_db(transaction=True)
def test_the_fanned_out_job_executes_an_approval_whose_resume_was_lost(
    ask: TurnRunner, tenant_a: Tenant, people_a: People, celery_worker_thread: None
) -> None:
    action = _approved_in_a_turn(ask, people_a, "Text Emma that class moved to 3pm", _sms_model())
    PendingAction.objects.filter(pk=action.pk).update(
        decided_at=timezone.now() - timedelta(hours=1)
    )

    fan_out.delay("chat.requeue_stranded_resumes")

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with tenant_context(tenant_a):
            status = PendingAction.objects.get(pk=action.pk).status
        if status == PendingAction.Status.EXECUTED:
            break
        time.sleep(0.2)
    assert status == PendingAction.Status.EXECUTED
    with tenant_context(tenant_a):
        assert list(OutboundMessage.objects.values_list("to_address", flat=True)) == [
            "+12025550111"
        ]


# -- whatever else the conversation did, the approved action runs once (real worker) ---------


def _sms_confirmation() -> str:
    return (
        "The request to send an SMS to Emma Wilson was approved by april and carried out: "
        "SMS to 1 recipient: sending (the card shows each one as it is sent)."
    )


@pytest.mark.django_db(transaction=True)
def test_an_sms_approved_beside_a_second_pending_request_is_sent_once_and_the_second_waits_on(
    ask: TurnRunner, people_a: People, celery_worker_thread: None
) -> None:
    sms = sms_requested(ask)
    email_model = ScriptedChatModel(replies=[tool_call("send_email", **EMAIL)])
    ask("Email Emma that the trip leaves at 8", model=email_model, conversation=sms.conversation)
    email = PendingAction.objects.get(tool="send_email")

    decide(sms, user=people_a.approver)
    reply = reply_to(sms)

    outcome = sent_once_and_told_once(sms, reply=reply)
    assert outcome.replies == [_sms_confirmation()] == [reply.content]
    assert outcome_of(email).status == "pending", "the second request still waits for its decision"

    decide(email, user=people_a.approver)
    reply_to(email)

    assert outcome_of(email).status == "executed"
    assert outcome_of(email).sent_to == ["emma@example.com"]
    assert outcome_of(sms).sent_to == ["+12025550111"], "approving the second sends no SMS again"
    assert len(outcome_of(email).replies) == 2, "one confirmation each"


@pytest.mark.django_db(transaction=True)
def test_an_sms_approved_after_a_cancelled_turn_is_sent_once_and_confirmed(
    ask: TurnRunner, people_a: People, celery_worker_thread: None
) -> None:
    sms = sms_requested(ask)

    def cancelled_mid_answer(messages: list[Any]) -> AIMessage:
        asked = Message.objects.filter(conversation=sms.conversation, role="user").latest("pk")
        cancel_request(conversation=sms.conversation, run_id=asked.uuid)  # staff press stop
        return AIMessage("word " * 300)

    cancelled = ask(
        "Tell me everything about the library",
        model=ScriptedChatModel(replies=[cancelled_mid_answer], seconds_per_chunk=0.005),
        conversation=sms.conversation,
    )
    assert cancelled.reply is not None and cancelled.reply.status == Message.Status.CANCELLED

    decide(sms, user=people_a.approver)
    reply = reply_to(sms)

    outcome = sent_once_and_told_once(sms, reply=reply)
    assert outcome.replies == [cancelled.reply.content, reply.content]
    assert reply.content == _sms_confirmation()


@pytest.mark.django_db(transaction=True)
def test_an_sms_approved_after_its_sibling_was_withdrawn_is_sent_once_and_the_sibling_never(
    ask: TurnRunner, people_a: People, celery_worker_thread: None
) -> None:
    sms = sms_requested(ask)
    email_model = ScriptedChatModel(replies=[tool_call("send_email", **EMAIL)])
    ask("Email Emma that the trip leaves at 8", model=email_model, conversation=sms.conversation)
    email = PendingAction.objects.get(tool="send_email")
    withdrawn = ask("cancel that", conversation=sms.conversation)  # the router: the newest
    assert outcome_of(email).status == "withdrawn"

    decide(sms, user=people_a.approver)
    reply = reply_to(sms)

    outcome = sent_once_and_told_once(sms, reply=reply)
    assert withdrawn.reply is not None
    assert outcome.replies == [withdrawn.reply.content, reply.content]
    assert outcome_of(email).sent_to == []
    assert outcome_of(email).events == ["proposed", "withdrawn"]


@pytest.mark.django_db(transaction=True)
def test_an_sms_approved_after_small_talk_resumes_the_waiting_graph_and_is_confirmed_once(
    ask: TurnRunner, people_a: People, celery_worker_thread: None
) -> None:
    sms = sms_requested(ask)
    hello = ask("thanks!", conversation=sms.conversation)  # the router answers; graph waits on
    assert hello.reply is not None

    decide(sms, user=people_a.approver)
    reply = reply_to(sms)

    outcome = sent_once_and_told_once(sms, reply=reply)
    assert outcome.replies == [hello.reply.content, reply.content]
    assert reply.content and reply.content != hello.reply.content


@pytest.mark.django_db(transaction=True)
def test_an_approval_after_a_later_question_whose_resume_was_never_queued_is_run_by_the_sweep(
    ask: TurnRunner, tenant_a: Tenant, people_a: People, celery_worker_thread: None
) -> None:
    sms = sms_requested(ask)
    ask("When does the library open?", model=answer_model(), conversation=sms.conversation)
    pending_action_decide(action_id=sms.id, user=people_a.approver, decision="approve")  # lost
    PendingAction.objects.filter(pk=sms.pk).update(decided_at=timezone.now() - timedelta(hours=1))

    fan_out.delay("chat.requeue_stranded_resumes")
    reply = reply_to(sms)

    outcome = sent_once_and_told_once(sms, reply=reply)
    assert outcome.replies == [KNOWLEDGE_ANSWER, reply.content]
    assert reply.content == _sms_confirmation()
    with tenant_context(tenant_a):
        assert stranded_resumes_requeue() == 0, "told once: the next sweep finds nothing"


@pytest.mark.django_db(transaction=True)
def test_an_action_whose_worker_died_while_executing_is_finished_once_by_the_sweep(
    ask: TurnRunner, people_a: People, celery_worker_thread: None
) -> None:
    sms = sms_requested(ask)
    ask("When does the library open?", model=answer_model(), conversation=sms.conversation)
    pending_action_decide(action_id=sms.id, user=people_a.approver, decision="approve")
    pending_action_execute(action_id=sms.id)  # the dead worker queued the SMS …
    PendingAction.objects.filter(pk=sms.pk).update(  # … and died before recording it
        status=PendingAction.Status.EXECUTING, updated_at=timezone.now() - timedelta(hours=1)
    )
    with as_superuser_with_triggers_off():  # the audit trail is append-only
        ActionEvent.objects.filter(action_id=sms.id, kind="executed").delete()

    fan_out.delay("chat.requeue_stranded_resumes")
    reply = reply_to(sms)

    outcome = outcome_of(sms)
    assert outcome.status == "executed"
    assert outcome.sent_to == ["+12025550111"], "the dead worker's SMS, not a second one"
    assert outcome.events == ["proposed", "approved", "executed"]
    assert outcome.card["status"] == "executed"
    assert outcome.announced == [reply.content], "one confirmation, no replayed answer"
    assert outcome.replies == [KNOWLEDGE_ANSWER, reply.content]


@pytest.mark.django_db(transaction=True)
def test_an_approved_action_whose_tool_refuses_ends_failed_and_the_requester_is_told_why(
    ask: TurnRunner, people_a: People, celery_worker_thread: None
) -> None:
    sms = sms_requested(ask)
    ask("When does the library open?", model=answer_model(), conversation=sms.conversation)
    pending_action_decide(action_id=sms.id, user=people_a.approver, decision="approve")
    tool_policy_enable(tool_name="send_sms", enabled=False)  # switched off before it ran

    resume_queue(sms.id)
    reply = reply_to(sms)

    outcome = outcome_of(sms)
    assert outcome.status == "failed"
    assert outcome.sent_to == []
    assert outcome.events == ["proposed", "approved", "failed"]
    assert outcome.card["status"] == "failed"
    assert "switched off" in outcome.card["result"]["error"]
    assert outcome.announced == [reply.content]
    assert outcome.replies == [KNOWLEDGE_ANSWER, reply.content]
    assert reply.content.startswith(
        "The request to send an SMS to Emma Wilson was approved by april but failed: "
    )
    assert "switched off" in reply.content


@pytest.mark.django_db(transaction=True)
def test_approving_twice_and_resuming_twice_sends_once_and_confirms_once(
    ask: TurnRunner, tenant_a: Tenant, people_a: People, celery_worker_thread: None
) -> None:
    sms = sms_requested(ask)
    ask("When does the library open?", model=answer_model(), conversation=sms.conversation)
    second_approver = make_user(tenant_a, "ari", role=APPROVER)

    decide(sms, user=people_a.approver)
    with pytest.raises(ActionStateError, match="already approved"):
        decide(sms, user=second_approver)
    resume_queue(sms.id)  # a redelivered or re-swept resume on top
    reply = reply_to(sms)

    outcome = sent_once_and_told_once(sms, reply=reply)
    assert outcome.replies == [KNOWLEDGE_ANSWER, reply.content]


@pytest.mark.django_db(transaction=True)
def test_a_rejection_whose_reply_was_lost_is_told_once_by_the_sweep(
    ask: TurnRunner, tenant_a: Tenant, people_a: People, celery_worker_thread: None
) -> None:
    sms = sms_requested(ask)
    pending_action_decide(action_id=sms.id, user=people_a.approver, decision="reject")  # lost
    PendingAction.objects.filter(pk=sms.pk).update(updated_at=timezone.now() - timedelta(hours=1))

    fan_out.delay("chat.requeue_stranded_resumes")
    reply = reply_to(sms)

    outcome = outcome_of(sms)
    assert outcome.status == "rejected"
    assert outcome.sent_to == []
    assert outcome.events == ["proposed", "rejected"]
    assert outcome.announced == [reply.content]
    assert outcome.replies == [reply.content]
    assert reply.content == (
        "The request to send an SMS to Emma Wilson was rejected by april. "
        "Nothing was sent or changed."
    )
    with tenant_context(tenant_a):
        assert stranded_resumes_requeue() == 0


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_while_executing_leaves_an_action_that_is_finished_once_and_confirmed(
    ask: TurnRunner,
    people_a: People,
    stack_env: dict[str, str],  # noqa: F811 (the imported fixture)
    tmp_path: Path,
) -> None:
    env = {**stack_env, "CHAT_STRANDED_RESUME_SECONDS": "10"}
    sms = sms_requested(ask)
    ask("When does the library open?", model=answer_model(), conversation=sms.conversation)
    doomed = start_worker(env, tmp_path, "doomed", concurrency=2)
    rescuer = None
    # The messages service serialises executions of one action on this advisory lock; held
    # here, it stops the doomed worker inside the tool, after its claim (``executing``).
    held = psycopg.connect(conninfo(), autocommit=True)
    try:
        held.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", [f"action:{sms.id}"])
        decide(sms, user=people_a.approver)
        deadline = time.monotonic() + 60
        while outcome_of(sms).status != "executing" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert outcome_of(sms).status == "executing"
        doomed.popen.kill()  # SIGKILL mid-execution: no acknowledgement, no clean-up
        doomed.popen.wait()
        held.close()
        rescuer = start_worker(env, tmp_path, "rescuer", concurrency=2)

        deadline = time.monotonic() + 90
        while not Message.objects.filter(run_id=sms.id).exists():
            assert time.monotonic() < deadline, "the action was never finished"
            fan_out.delay("chat.requeue_stranded_resumes")  # beat's job, sooner
            time.sleep(3)
        reply = reply_to(sms)
    finally:
        held.close()
        doomed.stop()
        if rescuer is not None:
            rescuer.stop()

    outcome = outcome_of(sms)
    assert outcome.status == "executed"
    assert outcome.sent_to == ["+12025550111"], "the dead worker's attempt left no message"
    assert outcome.events == ["proposed", "approved", "executed"]
    assert outcome.card["status"] == "executed"
    assert outcome.replies == [KNOWLEDGE_ANSWER, reply.content]
    assert outcome.announced == [reply.content]
    assert reply.content == _sms_confirmation()


# -- the sweep: which actions it resumes ----------------------------------------------------------


def test_the_sweep_resumes_abandoned_executions_and_untold_outcomes_but_not_fresh_or_told_ones(
    tenant_a: Tenant, resumes_queued: list[str], settings: Any
) -> None:
    settings.CHAT_STRANDED_RESUME_SECONDS = 120
    long_ago = timezone.now() - timedelta(hours=1)
    abandoned = _approved(tenant_a, seconds_ago=3600)
    untold = _approved(tenant_a, seconds_ago=3600)
    told = _approved(tenant_a, seconds_ago=3600)
    fresh = _approved(tenant_a, seconds_ago=3600)
    with tenant_context(tenant_a):
        PendingAction.objects.filter(pk=abandoned.pk).update(
            status=PendingAction.Status.EXECUTING, updated_at=long_ago
        )
        PendingAction.objects.filter(pk__in=[untold.pk, told.pk]).update(
            status=PendingAction.Status.EXECUTED, updated_at=long_ago
        )
        Message.objects.create(
            conversation=told.conversation,
            role=Message.Role.ASSISTANT,
            content="Sent.",
            run_id=told.id,
        )
        PendingAction.objects.filter(pk=fresh.pk).update(status=PendingAction.Status.EXECUTING)

        assert stranded_resumes_requeue() == 2

    assert sorted(resumes_queued) == sorted([str(abandoned.id), str(untold.id)])


def test_the_sweep_leaves_an_action_withdrawn_by_a_chat_message_alone(
    ask: TurnRunner, people_a: People, resumes_queued: list[str], settings: Any
) -> None:
    settings.CHAT_STRANDED_RESUME_SECONDS = 120
    sms = sms_requested(ask)
    ask("cancel that", conversation=sms.conversation)  # its reply is the router's
    PendingAction.objects.filter(pk=sms.pk).update(updated_at=timezone.now() - timedelta(hours=1))

    assert stranded_resumes_requeue() == 0
    assert resumes_queued == []


def test_the_sweep_queues_at_most_a_batch_per_run_oldest_first_and_the_rest_next_time(
    tenant_a: Tenant, resumes_queued: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("chat.services.expiry.STRANDED_BATCH", 2)
    oldest, older, newest = (_approved(tenant_a, seconds_ago=s) for s in (3000, 2000, 1000))
    with tenant_context(tenant_a):
        for action, hours in ((oldest, 3), (older, 2), (newest, 1)):
            PendingAction.objects.filter(pk=action.pk).update(
                updated_at=timezone.now() - timedelta(hours=hours)
            )

        assert stranded_resumes_requeue() == 2
        assert resumes_queued == [str(oldest.id), str(older.id)]


def test_the_sweep_leaves_outcomes_older_than_its_horizon_alone(
    tenant_a: Tenant, resumes_queued: list[str]
) -> None:
    action = _approved(tenant_a, seconds_ago=3600)
    with tenant_context(tenant_a):
        PendingAction.objects.filter(pk=action.pk).update(
            status=PendingAction.Status.REJECTED, updated_at=timezone.now() - timedelta(days=3)
        )

        assert stranded_resumes_requeue() == 0

    assert resumes_queued == []


def test_the_sweep_leaves_an_outcome_alone_when_its_turn_went_on_to_a_second_action(
    tenant_a: Tenant, resumes_queued: list[str]
) -> None:
    # One model message with two write calls: the resume runs the first, then the graph
    # proposes the second and waits; the turn's one reply comes after the second decision.
    first = _approved(tenant_a, seconds_ago=3600)
    with tenant_context(tenant_a):
        PendingAction.objects.filter(pk=first.pk).update(
            status=PendingAction.Status.EXECUTED, updated_at=timezone.now() - timedelta(hours=1)
        )
        pending_action_propose(
            conversation=first.conversation,
            tool_call_id="call_2",
            tool="send_sms",
            arguments=SMS,
            requested_by_id=first.requested_by_id,
        )

        assert stranded_resumes_requeue() == 0

    assert resumes_queued == []
