"""The tool call a complete request becomes: arguments in each write tool's own schema
(``actions/tools/*``), which the tool then validates like any model's call. Pure: no Django."""

from __future__ import annotations

from typing import Any

from chat.builtin_model.understanding.body import headline
from chat.builtin_model.understanding.directory import Directory
from chat.builtin_model.understanding.draft import Draft


def _recipients(draft: Draft, directory: Directory) -> list[str]:
    me = [directory.requester.email] if draft.found.me and directory.requester else []
    return [*draft.found.names, *draft.found.addresses, *draft.named, *me]


def tool_arguments(draft: Draft, directory: Directory) -> dict[str, Any]:
    """The write tool's arguments for a complete draft, in its schema (actions/tools/*)."""
    body = draft.body or ""
    if draft.tool == "create_announcement":
        audience = next((n for n in draft.found.names if n in directory.groups), None)
        return {"title": draft.title or headline(body), "body": body, "audience": audience}
    if draft.tool == "schedule_reminder":
        return _reminder(draft, directory)
    arguments: dict[str, Any] = {"to": _recipients(draft, directory), "body": body}
    if draft.tool == "send_email":
        arguments["subject"] = draft.subject or headline(body)
    return arguments


def _reminder(draft: Draft, directory: Directory) -> dict[str, Any]:
    assert draft.when is not None  # _check_when asked for it otherwise
    inner = _reminder_channel(draft, directory)
    arguments: dict[str, Any] = {"to": _recipients(draft, directory), "body": draft.body}
    if inner == "send_email":
        arguments["subject"] = headline(f"{'알림' if draft.ko else 'Reminder'}: {draft.body}")
    return {"due_at": draft.when.at.isoformat(), "tool": inner, "arguments": arguments}


def _reminder_channel(draft: Draft, directory: Directory) -> str:
    """The channel asked for; else e-mail for "me"; else SMS unless a named contact has
    only an e-mail address."""
    if draft.channel:
        return draft.channel
    if draft.found.me:
        return "send_email"
    channels = {c.name: c.channels for c in directory.contacts}
    named = [channels[n] for n in draft.found.names if n in channels]
    if named and all("sms" not in c and "email" in c for c in named):
        return "send_email"
    return "send_sms"
