"""Expiry: a pending action nobody decided within its tool policy's time becomes ``expired``
(an approver's edit still waiting for confirmation too: editing never extends the wait).

The transition is the same conditional UPDATE from ``pending`` as a decision or a withdrawal
(chat/pending_actions.py), so among overlapping expiry sweeps, a late approval and a
withdrawal exactly one wins, and an expired action can never be approved, hence never run.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from chat.models import ActionEvent, PendingAction
from chat.pending_actions import action_get, waited_hours
from core.metrics import HITL_DECISIONS

Status = PendingAction.Status


def overdue_action_ids() -> list[uuid.UUID]:
    """The current tenant's pending actions whose expiry has passed, oldest first."""
    return list(
        PendingAction.objects.filter(
            status__in=PendingAction.UNDECIDED, expires_at__lte=timezone.now()
        )
        .order_by("expires_at")
        .values_list("pk", flat=True)
    )


def stranded_approval_ids(*, older_than_seconds: int) -> list[uuid.UUID]:
    """The current tenant's actions approved at least ``older_than_seconds`` ago that no resume
    has claimed (a claim moves ``approved`` to ``executing``), oldest first."""
    decided_before = timezone.now() - timedelta(seconds=older_than_seconds)
    return list(
        PendingAction.objects.filter(status=Status.APPROVED, decided_at__lte=decided_before)
        .order_by("decided_at")
        .values_list("pk", flat=True)
    )


@transaction.atomic
def pending_action_expire(*, action_id: uuid.UUID | str) -> PendingAction | None:
    """Expire the action if it is still pending past its expiry; the expired action, or None
    when another sweep, a decision or a withdrawal got there first (or it is not due)."""
    now = timezone.now()
    won = PendingAction.objects.filter(
        pk=action_id, status__in=PendingAction.UNDECIDED, expires_at__lte=now
    ).update(status=Status.EXPIRED, updated_at=now)
    if not won:
        return None
    action = action_get(action_id=action_id)
    ActionEvent.objects.create(
        action=action, kind=ActionEvent.Kind.EXPIRED, data={"after_hours": waited_hours(action)}
    )
    HITL_DECISIONS.labels(decision="expired").inc()
    return action
