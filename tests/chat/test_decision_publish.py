"""A decision stands, and its resume is queued, even when announcing it fails (Redis away for
longer than its clients retry): the decision's publish runs after commit, and a failure there
used to escape the decision (a 500 for a decision that was taken) and skip the resume queued
after it, leaving the action for the stranded sweep two minutes later. And the last card
announced is the action as it stands, whoever announced an older reading of it last."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis

from chat.events.publishing import PublishingEvents, publish_action
from chat.models import PendingAction
from chat.pending_actions import pending_action_decide
from chat.services import realtime
from core.schema import current_schema
from tests.chat.conftest import People, TurnRunner
from tests.chat.stranded import decide, outcome_of, sms_requested


@pytest.fixture
def announcing_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def unreachable(**_: object) -> None:
        raise redis.ConnectionError("Error 111 connecting to redis: Connection refused.")

    monkeypatch.setattr(realtime, "publish_action", unreachable)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_a_decision_whose_announcement_fails_still_stands_and_queues_its_resume(
    ask: TurnRunner,
    people_a: People,
    resumes_queued: list[str],
    announcing_fails: None,
    decision: str,
) -> None:
    action = sms_requested(ask)

    decide(action, user=people_a.approver, decision=decision)  # type: ignore[arg-type]

    action.refresh_from_db()
    assert action.status in (PendingAction.Status.APPROVED, PendingAction.Status.REJECTED)
    assert resumes_queued == [str(action.id)]


def _announce_with_publish_action(action: PendingAction) -> None:
    publish_action(schema=current_schema(), action=action)


def _announce_as_a_run(action: PendingAction) -> None:
    PublishingEvents(schema=current_schema(), conversation=action.conversation).action(action)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("announce", [_announce_with_publish_action, _announce_as_a_run])
def test_a_card_read_before_its_action_was_decided_is_followed_by_the_decided_one(
    ask: TurnRunner, people_a: People, announce: Callable[[PendingAction], None]
) -> None:
    # A delivery's worker read the action a moment before another process finished it and
    # announced that; its own, older card reaches the log last.
    action = sms_requested(ask)
    read_before = PendingAction.objects.select_related("conversation").get(pk=action.pk)
    pending_action_decide(action_id=action.id, user=people_a.approver, decision="reject")

    announce(read_before)

    assert outcome_of(action).card["status"] == "rejected"
