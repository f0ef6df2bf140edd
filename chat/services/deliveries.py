"""Live delivery status: a recipient's message of an action changed, so its card changes.

``actions`` cannot import ``chat``; it sends ``actions.signals.outbound_message_changed`` and
``chat.apps`` connects this. The action frame it publishes carries every recipient's status
(``chat.events.payloads.deliveries_payload``), so a reader that missed one frame loses nothing.
"""

from __future__ import annotations

import uuid

from chat.events.publishing import publish_action
from chat.models import PendingAction
from core.schema import current_schema


def action_delivery_publish(*, action_id: uuid.UUID | str) -> bool:
    """Publish the action's current state (``action`` frame) to its conversation and the
    tenant's approvers. Runs in the schema of the worker that delivered, so it finds only
    that tenant's action; False when no pending action has this id (a message queued by
    something else)."""
    action = PendingAction.objects.select_related("conversation").filter(pk=action_id).first()
    if action is None:
        return False
    publish_action(schema=current_schema(), action=action)
    return True
