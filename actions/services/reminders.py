"""Reminders: storing a write action to run later (firing them is ``actions.due_reminders``)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from actions.models import Reminder


def reminder_schedule(
    *,
    action_id: uuid.UUID,
    due_at: datetime,
    tool: str,
    arguments: dict[str, Any],
    description: str,
    created_by_id: int | None,
) -> Reminder:
    """Store a reminder; idempotent under ``action_id``."""
    reminder, _ = Reminder.objects.get_or_create(
        action_id=action_id,
        defaults={
            "due_at": due_at,
            "tool": tool,
            "arguments": arguments,
            "description": description,
            "created_by_id": created_by_id,
        },
    )
    return reminder
