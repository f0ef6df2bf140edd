"""The suite itself: what one test leaves in the embedded servers never reaches the next.

The two tests run in file order, in one test process (``--dist loadfile`` keeps a file together).
"""

from __future__ import annotations

import pytest

from core.celery import app

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting_tasks() -> int:
    with app.connection_for_write() as connection:
        channel = connection.default_channel
        queued = channel.client.llen(app.conf.task_default_queue)
        unacked = channel.client.hlen(channel.unacked_key)
    return int(queued) + int(unacked)


def test_a_test_may_leave_a_task_queued_with_no_worker_to_run_it() -> None:
    app.send_task("chat.run_turn", kwargs={"message_id": 3})
    assert _waiting_tasks() >= 1


def test_the_next_test_finds_no_task_of_the_one_before() -> None:
    # Ids restart at 1 after each test: a stale run_turn of message 3 would answer this test's
    # message 3.
    assert _waiting_tasks() == 0
