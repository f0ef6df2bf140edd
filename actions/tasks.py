"""Celery tasks of the actions app: thin, by id, each in the schema it was sent from."""

from __future__ import annotations

from typing import Any

from actions.due_reminders import reminders_fire_due
from actions.services.messages import (
    DELIVER_MESSAGE_TASK,
    outbound_message_deliver,
    outbound_messages_requeue_stale,
)
from core.celery import app


# Outcomes live on the rows, so no result is stored (nor subscribed to on send). Acknowledged
# late: a worker killed mid-send leaves the task to be redelivered (core/leases.py), and the
# redelivered task settles the row it left in ``sending`` (never sending it twice).
@app.task(
    name=DELIVER_MESSAGE_TASK,
    bind=True,
    acks_late=True,
    max_retries=None,
    ignore_result=True,
)
def deliver_message(self: Any, message_id: int) -> str:
    """Send one outbound message; a transient failure is retried after the backoff the
    service chose (the service counts attempts and decides when to give up), and a message
    another worker is still sending is looked at again once it would count as abandoned."""
    attempt = outbound_message_deliver(message_id=message_id)
    if attempt.retry_in is not None:
        raise self.retry(countdown=attempt.retry_in)
    return attempt.status


@app.task(name="actions.fire_due_reminders", ignore_result=True)
def fire_due_reminders() -> int:
    """Beat job (fanned out per tenant): fire the due reminders, and re-send messages whose
    delivery task was lost."""
    fired = reminders_fire_due()
    outbound_messages_requeue_stale()
    return fired
