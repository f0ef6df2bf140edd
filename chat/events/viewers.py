"""What each viewer of a conversation is sent of its events (docs/web.md, "Who sees an action").

An event is published once, for everyone following the conversation (``chat.events.log``); what
one viewer may read is decided when it is sent to them, by the web process that sends it (the
WebSocket consumer, the SSE stream), with the rule of ``chat.selectors.action_visible_to``:

- the conversation's owner gets every event; the ``pending`` and ``action`` events of an action
  they may not read (not theirs, not of a tool they decide) are redacted;
- someone else watching it (an approver or a tenant admin,
  ``chat.services.realtime.conversation_for_viewer``) gets its ``pending`` and ``action`` events
  only. The question, tokens and reply of a new turn are the owner's: the turn may be proposing
  an action the watcher may not read, and its words would reach them before its ``pending``
  event does. The watcher reads the conversation's messages by loading it, which asks the rule
  again. An action they may not read reaches them redacted, and ends their watch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from chat.events.payloads import redacted_action
from chat.models import PendingAction
from chat.selectors import action_visible_to

# The events that carry an action (its description, arguments, result, deliveries).
ACTION_EVENTS = frozenset({"pending", "action"})


def withheld(*, kind: str, owner: bool) -> bool:
    """Whether an event of ``kind`` is kept from a viewer who is (not) the owner, unread."""
    return not owner and kind not in ACTION_EVENTS


@dataclass(frozen=True)
class Shown:
    event: dict[str, Any]  # what the viewer is sent
    readable: bool  # False: the action was redacted


def action_event_for(*, event: dict[str, Any], user_id: int) -> Shown:
    """A ``pending`` or ``action`` event as user ``user_id`` may see it, asked now (the tenant's
    live policy; a user deactivated meanwhile reads nothing)."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    try:
        action = PendingAction.objects.filter(pk=event["action"]["id"]).first()
    except (KeyError, TypeError, ValueError, ValidationError):
        action = None
    if user is not None and action is not None and action_visible_to(user=user, action=action):
        return Shown(event, readable=True)
    return Shown({**event, "action": redacted_action(event.get("action") or {})}, readable=False)
