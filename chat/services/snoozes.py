"""Snooze: an approver puts a pending action aside ("remind me in 1 h / tomorrow").

A snooze is personal: the action leaves the inbox and badge of the approver who snoozed it
until ``until``, and nobody else's. It never extends the action's expiry, and it may not end
at or after it: a request hidden until it has already expired would never be seen again.
"""

from __future__ import annotations

import uuid
from datetime import datetime, time, timedelta
from typing import Final

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from chat.audit.services import audit_event_record
from chat.models import ActionEvent, ActionSnooze, PendingAction
from chat.pending_actions import (
    ActionExpired,
    ActionPermissionDenied,
    ActionStateError,
    action_get,
    decide_refusal,
    expired_message,
    is_overdue,
)
from core.schema import current_tenant

# The named snoozes the cards offer; any other ``until`` is an ISO 8601 moment.
PRESETS: Final = ("1h", "tomorrow")
TOMORROW_AT: Final = time(9, 0)


class SnoozeInvalid(Exception):
    """The snooze's end is unusable (in the past, or at or after the action's expiry)."""


def snooze_preset_until(preset: str, *, now: datetime | None = None) -> datetime:
    """The moment a named snooze ends: in an hour, or tomorrow at 9:00 in the tenant's zone."""
    now = now or timezone.now()
    if preset == "1h":
        return now + timedelta(hours=1)
    if preset == "tomorrow":
        zone = current_tenant().zone
        tomorrow = now.astimezone(zone).date() + timedelta(days=1)
        return datetime.combine(tomorrow, TOMORROW_AT, tzinfo=zone)
    raise SnoozeInvalid(f"unknown snooze {preset!r}; use one of {', '.join(PRESETS)}")


@transaction.atomic
def pending_action_snooze(
    *, action_id: uuid.UUID | str, user: User, until: datetime
) -> ActionSnooze:
    """Hide a pending action from ``user``'s inbox until ``until`` (snoozing again moves it).

    Only someone who may decide the action may snooze it; a decided or expired action cannot
    be snoozed."""
    action = action_get(action_id=action_id)
    refusal = decide_refusal(action=action, user=user)
    if refusal is not None:
        raise ActionPermissionDenied(refusal)
    if action.status == PendingAction.Status.EXPIRED or is_overdue(action):
        raise ActionExpired(expired_message(action))
    if action.status != PendingAction.Status.PENDING:
        raise ActionStateError(f"this action is already {action.status}")
    if until <= timezone.now():
        raise SnoozeInvalid("'until' is in the past; a snooze ends in the future")
    if action.expires_at is not None and until >= action.expires_at:
        expires = timezone.localtime(action.expires_at, current_tenant().zone)
        raise SnoozeInvalid(
            f"this request expires at {expires:%Y-%m-%d %H:%M} ({expires.tzname()}); a snooze "
            "cannot outlast it, so decide it or snooze it for less"
        )
    snooze, _ = ActionSnooze.objects.update_or_create(
        action=action, user=user, defaults={"until": until}
    )
    audit_event_record(
        action=action, kind=ActionEvent.Kind.SNOOZED, actor=user, data={"until": until.isoformat()}
    )
    return snooze


@transaction.atomic
def pending_action_unsnooze(*, action_id: uuid.UUID | str, user: User) -> PendingAction:
    """End ``user``'s snooze of an action now (the inbox's Undo): it is back in their inbox and
    badge at once. Undoing a snooze that has ended or never was changes nothing.

    Only someone who may decide the action may undo a snooze of it; the audit trail records the
    early end as a ``snoozed`` event with ``until`` null."""
    action = action_get(action_id=action_id)
    refusal = decide_refusal(action=action, user=user)
    if refusal is not None:
        raise ActionPermissionDenied(refusal)
    ended, _ = ActionSnooze.objects.filter(
        action=action, user=user, until__gt=timezone.now()
    ).delete()
    if ended:
        audit_event_record(
            action=action, kind=ActionEvent.Kind.SNOOZED, actor=user, data={"until": None}
        )
    return action
