"""The tool call a complete request becomes: arguments in each write tool's own schema
(``actions/tools/*``), which the tool then validates like any model's call. Pure: no Django."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from actions.tools.words import ToolWords
from chat.builtin_model.understanding.body import headline
from chat.builtin_model.understanding.directory import Directory
from chat.builtin_model.understanding.draft import Draft

_EMAIL = "email"  # the address kind of the requester's account and of e-mail contacts


def _recipients(draft: Draft, directory: Directory) -> list[str]:
    me = [directory.requester.email] if draft.found.me and directory.requester else []
    return [*draft.found.names, *draft.found.addresses, *draft.named, *me]


def tool_arguments(
    draft: Draft, directory: Directory, tools: Mapping[str, ToolWords]
) -> dict[str, Any]:
    """The write tool's arguments for a complete draft, in its schema (actions/tools/*), by
    the tool's shape (``tools``: every write tool's words, by name)."""
    body = draft.body or ""
    shape = tools[draft.tool].shape
    if shape == "announcement":
        audience = next((n for n in draft.found.names if n in directory.groups), None)
        return {"title": draft.title or headline(body), "body": body, "audience": audience}
    if shape == "reminder":
        return _reminder(draft, directory, tools)
    arguments: dict[str, Any] = {"to": _recipients(draft, directory), "body": body}
    if tools[draft.tool].subject:
        arguments["subject"] = draft.subject or headline(body)
    return arguments


def _reminder(draft: Draft, directory: Directory, tools: Mapping[str, ToolWords]) -> dict[str, Any]:
    assert draft.when is not None  # _check_when asked for it otherwise
    inner = _reminder_channel(draft, directory, tools)
    if tools[inner].shape == "announcement":  # a scheduled announcement: its own arguments
        now = tool_arguments(replace(draft, tool=inner, when=None), directory, tools)
        return {"due_at": draft.when.at.isoformat(), "tool": inner, "arguments": now}
    arguments: dict[str, Any] = {"to": _recipients(draft, directory), "body": draft.body}
    if tools[inner].subject:
        label = "알림" if draft.ko else "Reminder"
        body = draft.body or ""
        already = body.lower().startswith(label.lower())  # "Reminder: the book fair"
        reminder = headline(body if already else f"{label}: {body}")
        arguments["subject"] = draft.subject or reminder
    return {"due_at": draft.when.at.isoformat(), "tool": inner, "arguments": arguments}


def _reminder_channel(draft: Draft, directory: Directory, tools: Mapping[str, ToolWords]) -> str:
    """The channel asked for; else e-mail (the requester's only address) for "me"; else the
    first message tool (SMS) unless no named contact has its address and all have an e-mail
    address."""
    if draft.channel:
        return draft.channel
    sends = [name for name, words in tools.items() if words.shape == "message"]
    mail = next((name for name in sends if tools[name].channel == _EMAIL), sends[0])
    if draft.found.me:
        return mail
    first = sends[0]
    channels = {c.name: c.channels for c in directory.contacts}
    named = [channels[n] for n in draft.found.names if n in channels]
    if named and all(tools[first].channel not in c and _EMAIL in c for c in named):
        return mail
    return first
