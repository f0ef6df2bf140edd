"""Firing the due reminders: each runs its write tool once, under its own action id.

It sits above ``actions.tools`` (it looks tools up in the registry), while
``actions.services.reminders`` (storing a reminder) sits below them: the tools call services,
never the other way round.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from actions.models import Reminder
from actions.tools.base import ToolContext, ToolError
from actions.tools.registry import get_tool

logger = logging.getLogger(__name__)


def reminders_fire_due(*, now: datetime | None = None, limit: int = 100) -> int:
    """Fire up to ``limit`` reminders due at ``now``; returns how many this call fired.

    Each reminder is claimed with SELECT … FOR UPDATE SKIP LOCKED and marked fired (or
    failed) in the same transaction as its effect, so two ticks or two workers racing for the
    same row never both fire it, and a crash mid-way leaves it scheduled with nothing done.
    Rows due later are not even read, so nothing fires early.
    """
    moment = now or timezone.now()
    fired = 0
    while fired < limit and _fire_next_due(moment):
        fired += 1
    return fired


@transaction.atomic
def _fire_next_due(now: datetime) -> bool:
    reminder = (
        Reminder.objects.select_for_update(skip_locked=True)
        .filter(status=Reminder.Status.SCHEDULED, due_at__lte=now)
        .order_by("due_at", "pk")
        .first()
    )
    if reminder is None:
        return False
    try:
        with transaction.atomic():  # a savepoint: a failed effect leaves no half-made rows
            result = _run(reminder)
    except ToolError as error:
        _record(reminder, Reminder.Status.FAILED, error=str(error))
    except Exception as error:
        logger.exception("reminder %s crashed", reminder.action_id)
        _record(reminder, Reminder.Status.FAILED, error=f"unexpected error: {error}")
    else:
        _record(reminder, Reminder.Status.FIRED, result=result)
    return True


def _run(reminder: Reminder) -> dict[str, Any]:
    """Re-check the arguments against today's contacts and policy, then execute the tool
    under the reminder's own action id (a reminder is created once per action)."""
    tool = get_tool(reminder.tool)
    args = tool.validate(reminder.arguments)
    outcome = tool.execute(
        args, ToolContext(action_id=reminder.action_id, requested_by_id=reminder.created_by_id)
    )
    return {"summary": outcome.summary, **outcome.data}


def _record(reminder: Reminder, status: str, **fields: Any) -> None:
    reminder.status = status
    reminder.fired_at = timezone.now()
    for name, value in fields.items():
        setattr(reminder, name, value)
    reminder.save(update_fields=["status", "fired_at", *fields])
    logger.info("reminder %s %s", reminder.action_id, status)
