"""Attack on `make run` (issue 28, finding 2): an approved action left ``approved`` for good.

Staff ask for an SMS, then ask an unrelated question in the same conversation before anyone
decides; the approver approves. The decision used to resume the graph with
``Command(resume=...)`` although the thread's latest checkpoint was no longer that action's
interrupt: the resume re-answered the knowledge question, the SMS was never sent, and the
stranded sweep never picked it up. The door tried here is the decision (``action_decide``, what
the WebSocket frame, the HTTP API and the inbox all call) with a real Celery worker resuming.
"""

from __future__ import annotations

import pytest

# The chat suite's fixtures: a turn runner, staff and an approver, a fresh checkpointer pool.
from tests.chat.conftest import (  # noqa: F401
    People,
    TurnRunner,
    _fresh_checkpointer,
    ask,
    people_a,
)
from tests.chat.stranded import (
    KNOWLEDGE_ANSWER,
    answer_model,
    decide,
    outcome_of,
    reply_to,
    sent_once_and_told_once,
    sms_requested,
)

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_sms_approved_after_a_later_knowledge_question_is_sent_once_and_confirmed(
    ask: TurnRunner,  # noqa: F811
    people_a: People,  # noqa: F811
    celery_worker_thread: None,
) -> None:
    action = sms_requested(ask)
    ask("When does the library open?", model=answer_model(), conversation=action.conversation)

    decide(action, user=people_a.approver)
    reply = reply_to(action)

    outcome = sent_once_and_told_once(action, reply=reply)
    assert outcome.replies == [KNOWLEDGE_ANSWER, reply.content]
    assert "Emma Wilson" in reply.content and "sending" in reply.content.lower()


def test_a_rejection_after_a_later_question_is_told_once_and_never_repeats_the_answer(
    ask: TurnRunner,  # noqa: F811
    people_a: People,  # noqa: F811
    celery_worker_thread: None,
) -> None:
    action = sms_requested(ask)
    ask("When does the library open?", model=answer_model(), conversation=action.conversation)

    decide(action, user=people_a.approver, decision="reject")
    reply = reply_to(action)

    outcome = outcome_of(action)
    assert outcome.status == "rejected"
    assert outcome.sent_to == []
    assert outcome.events == ["proposed", "rejected"]
    assert outcome.card["status"] == "rejected"
    assert outcome.announced == [reply.content], "the knowledge answer is not announced again"
    assert outcome.replies == [KNOWLEDGE_ANSWER, reply.content]
    assert reply.content.startswith("The request to send an SMS to Emma Wilson was rejected")
