"""One turn at a time per conversation, and one execution per turn.

The sender reserves the conversation; the worker takes the reservation over with a token of
its own execution. A redelivered copy of a task that is still running elsewhere must wait for
it instead of running the same turn alongside it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from django.conf import settings

from chat.locks import ConversationLock
from chat.models import Message
from chat.services.realtime import (
    Accepted,
    ConversationBusy,
    message_send,
    turn_execute,
)
from core.schema import current_schema
from tests.chat.conftest import People


def _lock_of(accepted: Accepted, token: str) -> ConversationLock:
    return ConversationLock(
        schema=current_schema(),
        conversation_uuid=str(accepted.conversation.uuid),
        token=token,
    )


@pytest.fixture
def accepted(people_a: People) -> Iterator[Accepted]:
    sent = message_send(
        user=people_a.staff,
        text="Is the office open on Saturday?",
        conversation_uuid=None,
        client_id=None,
    )
    yield sent
    _lock_of(sent, "cleanup").client.delete(_lock_of(sent, "cleanup").key)


def _replies(accepted: Accepted) -> int:
    return Message.objects.filter(run_id=accepted.message.uuid, role=Message.Role.ASSISTANT).count()


def test_a_second_message_while_a_turn_is_reserved_is_refused(
    accepted: Accepted, people_a: People
) -> None:
    with pytest.raises(ConversationBusy):
        message_send(
            user=people_a.staff,
            text="and another thing",
            conversation_uuid=str(accepted.conversation.uuid),
            client_id=None,
        )


def test_the_worker_takes_over_the_senders_reservation_and_releases_it(
    accepted: Accepted,
) -> None:
    turn_execute(message_id=accepted.message.pk)

    assert _replies(accepted) == 1
    assert _lock_of(accepted, "probe").holder() is None


def test_a_redelivered_copy_waits_while_another_execution_runs_the_turn(
    accepted: Accepted,
) -> None:
    running = _lock_of(accepted, "run:elsewhere")
    assert running.take_over(from_token=f"sent:{accepted.message.uuid}")

    with pytest.raises(ConversationBusy):
        turn_execute(message_id=accepted.message.pk)

    assert _replies(accepted) == 0
    assert running.holder() == "run:elsewhere"


def test_a_crashed_executions_expired_lock_is_taken_over(accepted: Accepted) -> None:
    crashed = _lock_of(accepted, "run:crashed")
    assert crashed.take_over(from_token=f"sent:{accepted.message.uuid}")
    crashed.client.pexpire(crashed.key, 1)  # what CHAT_TURN_LOCK_SECONDS does to a dead worker

    _wait_until_gone(crashed)
    turn_execute(message_id=accepted.message.pk)

    assert _replies(accepted) == 1


def test_the_lock_expires_after_the_configured_time_without_progress(
    accepted: Accepted,
) -> None:
    lock = _lock_of(accepted, "probe")
    ttl_ms = lock.client.pttl(lock.key)
    assert 0 < ttl_ms <= settings.CHAT_TURN_LOCK_SECONDS * 1000


def _wait_until_gone(lock: ConversationLock) -> None:
    for _ in range(100):
        if lock.holder() is None:
            return
        time.sleep(0.01)
    raise AssertionError("the lock did not expire")
