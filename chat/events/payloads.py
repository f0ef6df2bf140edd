"""The payloads of DESIGN.md §6: what a socket, the SSE feed and the approvers' inbox show of a
message, an action and a finished turn."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from actions.selectors import action_deliveries
from actions.tools.base import UnknownToolError
from actions.tools.registry import get_tool
from chat.argument_changes import argument_changes
from chat.models import Message, PendingAction
from chat.selectors import action_edit, action_visible_to


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


def placeholder_description(tool_name: str) -> str:
    """What someone who may not read an action sees instead of its description: the tool's
    label, nothing of its recipients, subject or text."""
    try:
        label = get_tool(tool_name).label
    except UnknownToolError:
        label = tool_name
    return f"A “{label}” request, for its own approvers to read"


def redacted_action(action: dict[str, Any]) -> dict[str, Any]:
    """An action payload (full or not) as someone who may not read the action sees it: the same
    keys, its id, tool and status, a placeholder description, and nothing else
    (``chat.selectors.action_visible_to`` decides who)."""
    tool = str(action.get("tool", ""))
    shown: dict[str, Any] = {
        "id": action.get("id"),
        "tool": tool,
        "status": action.get("status"),
        "description": placeholder_description(tool),
        "redacted": True,
    }
    if "arguments" in action:
        shown |= {"arguments": {}}
    for kept in ("requested_by", "created_at", "conversation", "version"):
        if kept in action:
            shown[kept] = action[kept]
    if "edited" in action:
        shown["edited"] = None  # the counter-proposal's before/after is the arguments again
    if "result" in action:
        shown |= {"result": {}, "edited": None, "deliveries": []}
    return shown


def action_payload_for(action: PendingAction, *, viewer: User, full: bool) -> dict[str, Any]:
    """``action_payload`` as ``viewer`` may see it: whole, or redacted."""
    payload = action_payload(action, full=full)
    return payload if action_visible_to(user=viewer, action=action) else redacted_action(payload)


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
        "choices": message.choices,
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
