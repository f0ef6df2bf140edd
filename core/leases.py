"""Leases that keep a live worker's work its own, so a dead worker's work comes back in seconds.

Tasks are acknowledged late (after they finish), and Redis hands a task a worker took but never
acknowledged to another worker once it has sat in kombu's ``unacked_index`` for
``CELERY_VISIBILITY_TIMEOUT`` seconds. That timeout used to be an hour, the longest a turn may
run, so a worker killed mid-turn stranded its turn (and the conversation) for an hour. Now the
timeout is short (30 s) and a live worker *renews* the index entry of every task it holds (run
or waiting for its ETA) every ``CELERY_LEASE_RENEW_SECONDS``: a task of a live worker is never
handed out twice, and a task of a dead one is back in the queue within the timeout plus kombu's
restore interval. The same thread renews other leases of running work (the conversation lock
of a running turn, chat/services/realtime.py) and writes this worker's heartbeat, which /readyz
reads (``live_workers``).

Plain Redis and Celery signals; no product imports.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from celery.signals import task_postrun, task_received, task_revoked, worker_ready
from django.conf import settings

from core.redis_clients import sync_redis

logger = logging.getLogger(__name__)

WORKERS_KEY = "cs:workers"


class LeaseKeeper:
    """One daemon thread per process that calls every registered renewal each period."""

    def __init__(self) -> None:
        self._renewals: dict[object, Callable[[], Any]] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.heartbeat_name: str | None = None

    def hold(self, key: object, renew: Callable[[], Any]) -> None:
        with self._lock:
            self._renewals[key] = renew
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, daemon=True, name="cs-leases")
                self._thread.start()

    def release(self, key: object) -> None:
        with self._lock:
            self._renewals.pop(key, None)

    @contextlib.contextmanager
    def held(self, renew: Callable[[], Any]) -> Iterator[None]:
        key = object()
        self.hold(key, renew)
        try:
            yield
        finally:
            self.release(key)

    def _run(self) -> None:
        while True:
            self.renew_all()
            time.sleep(settings.CELERY_LEASE_RENEW_SECONDS)

    def renew_all(self) -> None:
        with self._lock:
            renewals = list(self._renewals.items())
        for key, renew in renewals:
            try:
                if renew() is False:  # the lease is gone (acknowledged, released): forget it
                    self.release(key)
            except Exception:  # Redis away for a moment: try again next period
                logger.warning("could not renew a lease", exc_info=True)


keeper = LeaseKeeper()


def _unacked_index_key() -> str:
    options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    return str(options.get("global_keyprefix", "")) + str(
        options.get("unacked_index_key", "unacked_index")
    )


def _renew_delivery(tag: str) -> bool:
    """Move the task's unacked entry to now; False once it is acknowledged (entry gone)."""
    renewed = bool(sync_redis().zadd(_unacked_index_key(), {tag: time.time()}, xx=True, ch=True))
    if not renewed:
        with _held_lock:
            for task_id, tags in list(_held.items()):
                tags.discard(tag)
                if not tags:
                    del _held[task_id]
    return renewed


def _heartbeat(name: str) -> bool:
    # The score is when this heartbeat goes stale (three renewal periods of the writer), so a
    # reader needs no knowledge of the writer's settings.
    sync_redis().zadd(WORKERS_KEY, {name: time.time() + 3 * settings.CELERY_LEASE_RENEW_SECONDS})
    return True


def live_workers() -> int:
    """Workers whose heartbeat has not gone stale (for /readyz)."""
    client = sync_redis()
    now = time.time()
    client.zremrangebyscore(WORKERS_KEY, 0, now)
    return int(client.zcount(WORKERS_KEY, now, "+inf"))


@worker_ready.connect(dispatch_uid="countersign_worker_heartbeat")
def _start_heartbeat(sender: Any = None, **_: Any) -> None:
    name = getattr(sender, "hostname", None) or f"{socket.gethostname()}:{os.getpid()}"
    keeper.hold(("heartbeat", name), lambda: _heartbeat(name))


# Leases are kept per delivery (the broker message's tag), not per task id: a retried task
# (``self.retry``: a turn waiting for its conversation) and a redelivered copy carry the task id
# of the delivery before them, and may be received before that one ends. Keyed by task id, the
# copy's hold replaced the first one's and the first one's end then released it: the copy's
# lease lapsed while it waited or ran, and it was handed out a second time.
_held: dict[str, set[str]] = {}  # task id -> tags of its deliveries this worker holds
_held_lock = threading.Lock()


@task_received.connect(dispatch_uid="countersign_task_lease")
def _lease_received_task(request: Any = None, **_: Any) -> None:
    tag = getattr(getattr(request, "message", None), "delivery_tag", None)
    if tag is not None and request is not None:
        with _held_lock:
            _held.setdefault(str(request.id), set()).add(str(tag))
        keeper.hold(("delivery", str(tag)), lambda: _renew_delivery(str(tag)))


def _end_leases_of(task_id: str | None) -> None:
    """A delivery of ``task_id`` ended. With only one held, its lease ends now; with several,
    which one ended is not known here (Celery's signal names the task, not the delivery), so
    each is kept until its renewal finds its entry acknowledged (``_renew_delivery``)."""
    with _held_lock:
        tags = _held.get(str(task_id), set())
        if len(tags) > 1:
            return
        _held.pop(str(task_id), None)
    for tag in tags:
        keeper.release(("delivery", tag))


@task_postrun.connect(dispatch_uid="countersign_task_lease_end")
def _end_task_lease(task_id: str | None = None, **_: Any) -> None:
    _end_leases_of(task_id)


@task_revoked.connect(dispatch_uid="countersign_task_lease_revoked")
def _end_revoked_task_lease(request: Any = None, **_: Any) -> None:
    _end_leases_of(getattr(request, "id", None))
