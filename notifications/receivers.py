"""What this app does when chat announces something (chat never imports this app)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from chat.models import PendingAction


def on_action_pending(sender: Any, action: PendingAction, **_: Any) -> None:
    """Queue the approvers' notification once the action is committed (never for an action
    that is rolled back, such as an agent evaluation's). ``robust``: a broker hiccup must not
    fail the turn that proposed the action; it is logged, and the inbox still shows the card."""
    from notifications.tasks import notify_pending

    action_id = str(action.pk)
    transaction.on_commit(lambda: notify_pending.delay(action_id), robust=True)
