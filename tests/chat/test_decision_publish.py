"""A decision stands, and its resume is queued, even when announcing it fails (Redis away for
longer than its clients retry): the decision's publish runs after commit, and a failure there
used to escape the decision (a 500 for a decision that was taken) and skip the resume queued
after it, leaving the action for the stranded sweep two minutes later."""

from __future__ import annotations

import pytest
import redis

from chat.models import PendingAction
from chat.services import realtime
from tests.chat.conftest import People, TurnRunner
from tests.chat.stranded import decide, sms_requested


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
