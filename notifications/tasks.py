"""Celery tasks of the notifications app: thin, by id, each in the schema it was sent from."""

from __future__ import annotations

from typing import Any

from core.celery import app
from notifications.services import approvers_notify, digest_run


@app.task(name="notifications.notify_pending", ignore_result=True)
def notify_pending(action_id: str) -> int:
    """An action became pending: schedule a digest for each person who may decide it."""
    return approvers_notify(action_id=action_id)


# Acknowledged late, like a delivery: a worker killed mid-send leaves the task to be redelivered,
# and the redelivered run finds the digest it left (never sending it twice).
@app.task(
    name="notifications.send_digest",
    bind=True,
    acks_late=True,
    max_retries=None,
    ignore_result=True,
)
def send_digest(self: Any, user_id: int) -> str:
    """Tell one approver what waits for them (at most once per interval); a transient provider
    failure is retried after the backoff the service chose."""
    attempt = digest_run(user_id=user_id)
    if attempt.retry_in is not None:
        raise self.retry(countdown=attempt.retry_in)
    return attempt.status
