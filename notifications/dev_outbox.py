"""The dev outbox: what the development delivery backends "sent", for people to read and follow.

With the ``outbox`` and ``console`` backends (the defaults under ``make run``) nothing leaves
the building, so a demo's SMS, Telegram and e-mail messages (approved actions' messages and
approvers' digests) would be seen nowhere. ``/dev/outbox/`` lists them with their subject, body
and links (docs/notifications.md). It exists only while ``DEBUG`` is on and every channel uses a
development backend: with production settings, or a real provider configured, it is a 404.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from actions.models import OutboundMessage
from notifications.models import ApprovalDigest
from notifications.services import digest_delivery

# The backends that deliver nothing to anyone (actions/delivery: ``outbox``, ``console``).
DEV_BACKENDS = frozenset({"outbox", "console"})
# A demo sends a few dozen; the page shows the newest this many of each kind.
OUTBOX_LIMIT = 100


@dataclass(frozen=True)
class OutboxEntry:
    """One message as the recipient would have read it."""

    kind: str  # "Message" (an approved action's) or "Approval digest"
    channel: str
    to: str
    subject: str
    body: str
    status: str
    created_at: datetime


def dev_outbox_enabled() -> bool:
    """On only in development: ``DEBUG`` and no channel wired to a real provider."""
    return settings.DEBUG and all(
        backend in DEV_BACKENDS for backend in settings.ACTIONS_BACKENDS.values()
    )


def dev_outbox_entries(*, limit: int = OUTBOX_LIMIT) -> list[OutboxEntry]:
    """The current tenant's outbound messages and approval digests, newest first."""
    entries = [
        OutboxEntry(
            kind="Message",
            channel=message.get_channel_display(),
            to=message.to_address,
            subject=message.subject,
            body=message.body,
            status=message.get_status_display(),
            created_at=message.created_at,
        )
        for message in OutboundMessage.objects.order_by("-created_at")[:limit]
    ]
    for digest in ApprovalDigest.objects.select_related("user").order_by("-created_at")[:limit]:
        delivery = digest_delivery(digest=digest)
        entries.append(
            OutboxEntry(
                kind="Approval digest",
                channel=digest.get_channel_display(),
                to=f"{digest.address} ({digest.user.get_username()})",
                subject=delivery.subject or "",
                body=delivery.body,
                status=digest.get_status_display(),
                created_at=digest.created_at,
            )
        )
    return sorted(entries, key=lambda entry: entry.created_at, reverse=True)
