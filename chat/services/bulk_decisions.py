"""Deciding several pending actions in one request (the inbox's "approve selected").

Each action is decided on its own through the one decision service (``action_decide``), so each
is exactly-once exactly as a single decision is; one action's refusal (already decided, expired,
not in this tenant, not yours to decide) is that action's result and never stops the others.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User

from chat.models import PendingAction
from chat.pending_actions import (
    ActionInvalidArguments,
    ActionNotFound,
    ActionPermissionDenied,
    ActionStateError,
    Decision,
)
from chat.services.realtime import action_decide

# At most this many actions per request: enough for a screenful, small enough that one request
# stays short (each decision is its own transaction and queues its own resume).
MAX_BULK_DECISIONS = 50

# What one item may be refused with; anything else is a bug and fails the request.
ITEM_REFUSALS = (ActionNotFound, ActionPermissionDenied, ActionStateError, ActionInvalidArguments)


@dataclass(frozen=True)
class ItemDecision:
    """One action's result: the decided action, or the domain exception that refused it."""

    action_id: str
    action: PendingAction | None
    refusal: Exception | None


def actions_decide_each(
    *, user: User, action_ids: list[str], decision: Decision, note: str = ""
) -> list[ItemDecision]:
    """Approve (as proposed, no edits) or reject each of ``action_ids`` in order, one result
    per id. The caller validates the list (ids, length, no repeats)."""
    results = []
    for action_id in action_ids:
        try:
            decided = action_decide(user=user, action_id=action_id, decision=decision, note=note)
        except ITEM_REFUSALS as refusal:
            results.append(ItemDecision(action_id, None, refusal))
        else:
            results.append(ItemDecision(action_id, decided, None))
    return results
