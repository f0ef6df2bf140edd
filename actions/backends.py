"""The Django side of the delivery seam: which backend a channel uses, from settings.

Read on every send rather than once at import, so a test (or a settings change picked up by
a restarted worker) swaps the backend in this one place.
"""

from __future__ import annotations

from django.conf import settings

from actions.delivery import DeliveryBackend, build_backend


def delivery_backend(channel: str) -> DeliveryBackend:
    """The configured backend for ``channel`` (``ACTIONS_<CHANNEL>_BACKEND``); a channel of the
    table (actions/delivery/channels.py) with no setting yet is outboxed."""
    name = settings.ACTIONS_BACKENDS.get(channel, "outbox")
    return build_backend(channel, name, settings.ACTIONS_DELIVERY_CONFIG)
