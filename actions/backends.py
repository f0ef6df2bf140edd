"""The Django side of the delivery seam: which backend a channel uses, from settings.

Read on every send rather than once at import, so a test (or a settings change picked up by
a restarted worker) swaps the backend in this one place.
"""

from __future__ import annotations

from django.conf import settings

from actions.delivery import DeliveryBackend, build_backend


def delivery_backend(channel: str) -> DeliveryBackend:
    """The configured backend for ``channel`` (``ACTIONS_<CHANNEL>_BACKEND``)."""
    return build_backend(
        channel, settings.ACTIONS_BACKENDS[channel], settings.ACTIONS_DELIVERY_CONFIG
    )
