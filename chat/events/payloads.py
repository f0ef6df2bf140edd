"""The payloads of DESIGN.md §6: what a socket, the SSE feed and the approvers' inbox show of a
message, an action and a finished turn."""

from __future__ import annotations

from typing import Any

from actions.selectors import action_deliveries
from chat.argument_changes import argument_changes
from chat.models import Message, PendingAction
from chat.selectors import action_edit


def action_payload(action: PendingAction, *, full: bool) -> dict[str, Any]:
    base = {"id": str(action.id), "tool": action.tool, "status": action.status}
    if not full:
        return {
            **base,
            "result": action.result or ({"error": action.error} if action.error else {}),
            "edited": edit_payload(action),
            "deliveries": deliveries_payload(action),
        }
    return {
        **base,
        "description": action.description,
        "arguments": action.arguments,
        "requested_by": action.requested_by.get_username(),
        "created_at": action.created_at.isoformat(),
        "version": action.version,
        "edited": edit_payload(action, with_arguments=True),
    }


def edit_payload(action: PendingAction, *, with_arguments: bool = False) -> dict[str, Any] | None:
    """Who edited the arguments (the counter-proposal's version) and the changed fields only;
    None if no edit. ``with_arguments`` adds both versions whole (``before``, ``after``): the
    full payload, which shows the arguments anyway."""
    edited = action_edit(action=action)
    if edited is None:
        return None
    changes = argument_changes(edited.data.get("before") or {}, edited.data.get("after") or {})
    if not changes:  # normalised back to the proposal: nothing to show (as on the card)
        return None
    payload = {
        "by": edited.actor.get_username() if edited.actor else None,
        "at": edited.at.isoformat(),
        "version": edited.data.get("version", action.version),
        "changes": [change.as_payload() for change in changes],
    }
    if with_arguments:
        payload |= {"before": edited.data.get("before"), "after": edited.data.get("after")}
    return payload


def deliveries_payload(action: PendingAction) -> list[dict[str, Any]]:
    """One entry per recipient of a message action (queued → sent | failed, with the provider's
    reason); empty for other tools and before the action ran."""
    if action.status not in PendingAction.APPROVED_SINCE:
        return []
    return [
        {
            "id": str(message.uuid),
            "to": message.to_address,
            "contact": message.contact.name if message.contact else None,
            "status": message.status,
            "error": message.error,
        }
        for message in action_deliveries(action_id=action.id)
    ]


def done_payload(message: Message) -> dict[str, Any]:
    return {
        "type": "done",
        "message": str(message.uuid),
        "content": message.content,
        "citations": message.citations,
        "usage": message.usage,
        "status": message.status,
    }


def message_payload(message: Message) -> dict[str, Any]:
    """A stored user message, so every tab watching the conversation shows the question."""
    return {
        "type": "message",
        "message": str(message.uuid),
        "role": message.role,
        "text": message.content,
        "created_at": message.created_at.isoformat(),
    }
