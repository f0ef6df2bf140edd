"""A task's lease (its entry in kombu's unacked index, renewed by the worker that holds it) is
kept per delivery, not per task id: a retried task (``self.retry``, e.g. a turn waiting for its
conversation) and a redelivered copy share the task id of the delivery before them, and that
delivery's end must not stop the renewal of the copy still held, or a live worker's turn would
be handed out a second time after the visibility timeout."""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from core import leases
from core.redis_clients import sync_redis

TASK_ID = "7d0c3b7e-task"


def _delivery(tag: str) -> SimpleNamespace:
    """What Celery's ``task_received`` hands over: the request and its broker message."""
    return SimpleNamespace(id=TASK_ID, message=SimpleNamespace(delivery_tag=tag))


@pytest.fixture
def unacked(db: None) -> Iterator[dict[str, float]]:
    """Two deliveries of one task in kombu's unacked index, both stamped an hour ago."""
    client, key = sync_redis(), leases._unacked_index_key()
    stamped = {"tag-first": time.time() - 3600, "tag-retry": time.time() - 3600}
    client.zadd(key, stamped)
    yield stamped
    client.zrem(key, *stamped)
    leases.keeper.release(("delivery", "tag-first"))
    leases.keeper.release(("delivery", "tag-retry"))
    leases._held.pop(TASK_ID, None)


def test_the_end_of_a_task_keeps_renewing_its_retry_received_before_it_ended(
    unacked: dict[str, float],
) -> None:
    leases._lease_received_task(request=_delivery("tag-first"))
    leases._lease_received_task(request=_delivery("tag-retry"))  # self.retry: same task id
    leases._end_task_lease(task_id=TASK_ID)  # the first delivery returns (then is acked)
    sync_redis().zrem(leases._unacked_index_key(), "tag-first")

    leases.keeper.renew_all()

    renewed = sync_redis().zscore(leases._unacked_index_key(), "tag-retry")
    assert renewed is not None and renewed > unacked["tag-retry"] + 3000, "the retry's lease lapsed"


def test_an_acknowledged_delivery_is_no_longer_renewed(unacked: dict[str, float]) -> None:
    leases._lease_received_task(request=_delivery("tag-first"))
    sync_redis().zrem(leases._unacked_index_key(), "tag-first")  # acknowledged

    leases.keeper.renew_all()

    assert sync_redis().zscore(leases._unacked_index_key(), "tag-first") is None
