"""Publishing announcements."""

from __future__ import annotations

import uuid

from django.utils import timezone

from actions.models import Announcement, ContactGroup


def announcement_publish(
    *,
    action_id: uuid.UUID,
    title: str,
    body: str,
    audience: ContactGroup | None,
    created_by_id: int | None,
) -> Announcement:
    """Publish now; idempotent under ``action_id`` (a second call returns the first row)."""
    announcement, _ = Announcement.objects.get_or_create(
        action_id=action_id,
        defaults={
            "title": title,
            "body": body,
            "audience": audience,
            "created_by_id": created_by_id,
            "published_at": timezone.now(),
        },
    )
    return announcement
