"""Outbound messages: queueing them for an action, and delivering one through its backend.

Exactly-once sending rests on two things in the database, not on Celery: rows are unique per
(action, channel, address), so re-executing an action finds its messages instead of adding
new ones; and only the worker whose conditional UPDATE moved a row from ``queued`` to
``sending`` talks to the provider, so a redelivered or duplicated task does nothing.

A row left in ``sending`` by a worker that died mid-send (``ACTIONS_SENDING_ABANDONED_SECONDS``
after the attempt began, longer than any provider timeout) may or may not have reached the
provider. None of our providers deduplicates a repeated request (Twilio and Telegram have no
request idempotency key; an e-mail's stable Message-ID only lets mail clients hide a copy), so
it is never sent again: it becomes ``failed`` with an error saying delivery is unknown, for a
person to check. Never two sends, at the cost of a message that may have left being shown as
failed.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from actions.delivery import Delivery
from actions.models import OutboundMessage
from actions.outbox import Failed, Retry, outbox_claim, outbox_send, outbox_settle
from actions.selectors import RecipientPlan
from actions.signals import outbound_message_changed
from core.celery import app as celery_app
from core.schema import current_schema

logger = logging.getLogger(__name__)

Status = OutboundMessage.Status


@dataclass(frozen=True)
class DeliveryAttempt:
    """What one delivery attempt left behind: the row's status ("skipped" when another
    worker owns the message or it is already done) and, for a retry, the wait in seconds."""

    status: str
    retry_in: float | None = None


@dataclass(frozen=True)
class QueuedMessages:
    """The action's messages, and the plan they were made from (None when they already
    existed: a re-execution does not resolve recipients again)."""

    messages: list[OutboundMessage]
    plan: RecipientPlan | None


@transaction.atomic
def outbound_messages_queue(
    *,
    action_id: uuid.UUID,
    channel: str,
    resolve: Callable[[], RecipientPlan],
    body: str,
    subject: str = "",
) -> QueuedMessages:
    """Create one queued message per recipient ``resolve()`` finds; send them after commit.

    Idempotent under ``action_id``: when the action already has messages (a retried or
    redelivered execution) they are returned as they are, ``resolve`` is not called and
    nothing new is created, even if the group, an opt-out or the policy changed since.
    Concurrent executions of one action are serialised by a transaction-level advisory lock
    on the action id.
    """
    _lock_action(action_id)
    messages = list(OutboundMessage.objects.filter(action_id=action_id).order_by("pk"))
    plan = None
    if not messages:
        plan = resolve()
        messages = OutboundMessage.objects.bulk_create(
            OutboundMessage(
                action_id=action_id,
                channel=channel,
                contact_id=recipient.contact_id,
                to_address=recipient.address,
                subject=subject,
                body=body,
            )
            for recipient in plan.recipients
        )
    for message in messages:
        if message.status == Status.QUEUED:
            _deliver_after_commit(message.pk)
    return QueuedMessages(messages, plan)


def _lock_action(action_id: uuid.UUID) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [f"action:{action_id}"]
        )


def _deliver_after_commit(message_id: int) -> None:
    # The task is named, not imported: ``actions.tasks`` calls this module, so importing it
    # back would close a cycle. The schema is captured now: the task must run in the tenant
    # that queued the message.
    delivery = celery_app.signature(DELIVER_MESSAGE_TASK, args=[message_id])
    headers = {"_schema_name": current_schema()}
    transaction.on_commit(lambda: delivery.apply_async(headers=headers))


def outbound_message_deliver(*, message_id: int) -> DeliveryAttempt:
    """Send one message if it is still queued; record the outcome on the row.

    Success → ``sent`` with the provider's id. A transient failure goes back to ``queued``
    with the error and a backoff delay for the caller to retry after, until
    ``ACTIONS_DELIVERY_MAX_ATTEMPTS`` attempts have been made; then, like a permanent
    failure, ``failed`` with the provider's message. Nothing is marked sent unless the
    backend returned a result.
    """
    if not outbox_claim(
        OutboundMessage, message_id, last_attempt_at=timezone.now(), next_attempt_at=None
    ):
        return _resolve_abandoned(message_id)
    message = OutboundMessage.objects.get(pk=message_id)
    outcome = outbox_send(
        lambda: _delivery(message),
        channel=message.channel,
        attempts=message.attempts,
        label=f"message {message.pk}",
    )
    if isinstance(outcome, Retry):
        attempt = _finish(
            message,
            Status.QUEUED,
            error=outcome.error,
            next_attempt_at=timezone.now() + timedelta(seconds=outcome.delay),
        )
        return DeliveryAttempt(attempt.status, retry_in=outcome.delay)
    if isinstance(outcome, Failed):
        return _finish(message, Status.FAILED, error=outcome.error)
    return _finish(
        message,
        Status.SENT,
        provider_message_id=outcome.result.provider_message_id,
        provider_status=outcome.result.status,
        sent_at=timezone.now(),
        error="",
    )


# The Celery task that sends one message (``actions.tasks.deliver_message``).
DELIVER_MESSAGE_TASK = "actions.deliver_message"
UNKNOWN_DELIVERY = (
    "delivery interrupted: the worker sending this message stopped before the provider "
    "answered, so whether it was sent is unknown; it was not sent again"
)


def _resolve_abandoned(message_id: int) -> DeliveryAttempt:
    """What a task that cannot claim the message does: nothing, unless the row has sat in
    ``sending`` for longer than any send takes (its worker died). Then it is marked failed,
    never re-sent; a younger ``sending`` row asks the caller to look again when it would be
    abandoned (its sender may still be alive)."""
    row = (
        OutboundMessage.objects.filter(pk=message_id)
        .values("status", "last_attempt_at", "action_id")
        .first()
    )
    if row is None or row["status"] != Status.SENDING:
        return DeliveryAttempt("skipped")
    started = row["last_attempt_at"] or timezone.now()
    abandoned_at = started + timedelta(seconds=settings.ACTIONS_SENDING_ABANDONED_SECONDS)
    now = timezone.now()
    if now < abandoned_at:
        return DeliveryAttempt("skipped", retry_in=(abandoned_at - now).total_seconds() + 0.5)
    # Conditional on the attempt we looked at: a send that did finish meanwhile wins.
    marked = OutboundMessage.objects.filter(
        pk=message_id, status=Status.SENDING, last_attempt_at=row["last_attempt_at"]
    ).update(status=Status.FAILED, error=UNKNOWN_DELIVERY)
    if marked:
        logger.error("message %s: %s", message_id, UNKNOWN_DELIVERY)
        _announce_change(message_id=message_id, action_id=row["action_id"])
        return DeliveryAttempt(Status.FAILED)
    return DeliveryAttempt("skipped")


def _delivery(message: OutboundMessage) -> Delivery:
    return Delivery(
        channel=message.channel,
        to_address=message.to_address,
        body=message.body,
        subject=message.subject or None,
        idempotency_key=str(message.uuid),
    )


def _finish(message: OutboundMessage, status: str, **fields: Any) -> DeliveryAttempt:
    """Leave ``sending`` for ``status``; only the claiming worker can, so this never races."""
    left = outbox_settle(OutboundMessage, message.pk, status=status, **fields)
    if status == Status.FAILED:
        logger.warning("message %s failed: %s", message.pk, fields.get("error"))
    if left:
        _announce_change(message_id=message.pk, action_id=message.action_id)
    return DeliveryAttempt(status)


def _announce_change(*, message_id: int, action_id: uuid.UUID) -> None:
    """Tell listeners (the requester's and approvers' cards) once the new status is committed.
    A listener's failure is logged, never raised: the message has left either way, and a
    retried task must not look as if the send had failed."""

    def send() -> None:
        for receiver, outcome in outbound_message_changed.send_robust(
            sender=OutboundMessage, action_id=action_id, message_id=message_id
        ):
            if isinstance(outcome, Exception):
                logger.warning("%r on message %s failed: %r", receiver, message_id, outcome)

    transaction.on_commit(send)


def outbound_messages_requeue_stale() -> int:
    """Send again the queued messages whose task was lost (a worker died between recording a
    retry and publishing it, or between taking the task and acknowledging it: seen in the chaos
    run) once they have waited ``ACTIONS_QUEUED_STALE_SECONDS``. Harmless when the task was not
    lost: the claim lets one through. Rows stuck in ``sending`` are never touched: they may have
    left already."""
    cutoff = timezone.now() - timedelta(seconds=settings.ACTIONS_QUEUED_STALE_SECONDS)
    stale = list(
        OutboundMessage.objects.filter(status=Status.QUEUED)
        .filter(next_attempt_at__lt=cutoff)
        .values_list("pk", flat=True)
    ) + list(
        OutboundMessage.objects.filter(
            status=Status.QUEUED, next_attempt_at__isnull=True, created_at__lt=cutoff
        ).values_list("pk", flat=True)
    )
    with transaction.atomic():
        for message_id in stale:
            _deliver_after_commit(message_id)
    abandoned = timezone.now() - timedelta(seconds=settings.ACTIONS_SENDING_ABANDONED_SECONDS)
    for message_id in OutboundMessage.objects.filter(
        status=Status.SENDING, last_attempt_at__lt=abandoned
    ).values_list("pk", flat=True):
        _resolve_abandoned(message_id)
    return len(stale)
